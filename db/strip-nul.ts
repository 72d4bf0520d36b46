import {
  OperationNodeTransformer,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  type ValueNode,
} from "kysely";

/** A value without U+0000, if it is a string (see `StripNulPlugin`). */
export const withoutNul = <T>(value: T) =>
  typeof value === "string" && value.includes("\u0000") ? value.replaceAll("\u0000", "") : value;

class NulStripper extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    const value = withoutNul(node.value);
    return value === node.value ? node : { ...node, value };
  }

  protected override transformPrimitiveValueList(
    node: PrimitiveValueListNode,
  ): PrimitiveValueListNode {
    return node.values.some((value) => withoutNul(value) !== value)
      ? { ...node, values: node.values.map(withoutNul) }
      : node;
  }
}

/**
 * Drops U+0000 from every string a query sends. PostgreSQL cannot store it in text (it answers
 * "invalid byte sequence", which would be a 500), SQLite can; no title, comment or name needs it,
 * so both engines store the same text without it, and a lookup by a name holding one simply
 * finds the name without it.
 */
export class StripNulPlugin implements KyselyPlugin {
  private readonly stripper = new NulStripper();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.stripper.transformNode(args.node);
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}
