/**
 * `extensions` as graphql-js keeps them. It copies every type's, field's, argument's and enum value's `extensions`
 * into a new null-prototype object unless it already is one (an absent one becomes a new empty one): at a thousand
 * tables that is over 100,000 objects per schema. Configs without extensions share NO_EXTENSIONS; field-info.ts `info`
 * builds the engine's in the kept shape directly.
 */
export const NO_EXTENSIONS: Readonly<Record<string, never>> = Object.freeze(Object.create(null) as Record<string, never>);
