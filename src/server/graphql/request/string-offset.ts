import { Kind, visit, type ASTNode, type DocumentNode, type GraphQLError } from 'graphql';

/**
 * The incumbent parses `offset` as a bigint, which takes a numeric string too (`offset: "1"`), while its schema
 * still says `Int` (issue 29.8; `limit: "3"` stays an error there, as here). The validator's complaint about such a
 * literal is dropped; the compiler reads the string as the count.
 */
export function numericOffsetLiterals(doc: DocumentNode): Set<ASTNode> {
  const out = new Set<ASTNode>();
  visit(doc, {
    Argument(node) {
      if (node.name.value === 'offset' && node.value.kind === Kind.STRING && /^\d+$/.test(node.value.value)) out.add(node.value);
    },
  });
  return out;
}

/** The validation errors left once those about numeric `offset` strings are dropped. */
export function withoutStringOffsets(doc: DocumentNode, errors: readonly GraphQLError[]): readonly GraphQLError[] {
  if (errors.length === 0) return errors;
  const allowed = numericOffsetLiterals(doc);
  if (allowed.size === 0) return errors;
  return errors.filter((e) => !(e.nodes?.length === 1 && allowed.has(e.nodes[0] as ASTNode) && /^Int cannot represent/.test(e.message)));
}
