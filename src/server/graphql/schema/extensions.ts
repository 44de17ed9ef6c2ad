/**
 * `extensions` as graphql-js keeps them. It copies every type's, field's, argument's and enum value's `extensions`
 * into a new null-prototype object unless it already is one (an absent one becomes a new empty one): at a thousand
 * tables that is over 100,000 objects per schema. Configs without extensions share NO_EXTENSIONS; field-info.ts `info`
 * builds the engine's in the kept shape directly.
 */
export const NO_EXTENSIONS: Readonly<Record<string, never>> = Object.freeze(Object.create(null) as Record<string, never>);

/**
 * The `extensions` of an argument or input field that takes a column's value (insert objects, `_set`, `_inc`, primary
 * keys, comparison operands): there the incumbent takes a string for any column type and lets PostgreSQL parse it
 * (`c2_integer: "5"`), even where the scalar is GraphQL's own Int, Float or Boolean (request/validate.ts). One shared
 * object, in the kept shape.
 */
export const COLUMN_VALUE: Readonly<{ columnValue: true }> = Object.freeze(Object.assign(Object.create(null) as object, { columnValue: true as const }));
