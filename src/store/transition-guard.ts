import { sourcesOf, type OperationStatus } from "../domain/lifecycle.js";
import type { OperationChange } from "../core/operations/types.js";

/**
 * The states a record may be in for `change` to apply: the lifecycle table's sources of its new status, narrowed by
 * the writer's own `from`; undefined when neither restricts it (a change that keeps the status writes only fields).
 */
export function allowedSources(change: OperationChange): OperationStatus[] | undefined {
  const table = change.status === undefined ? undefined : sourcesOf(change.status);
  if (change.from === undefined) return table;
  return table === undefined ? [...change.from] : table.filter((status) => change.from!.includes(status));
}

/** Where each record's last change is in a list of changes (a record may have several, applied in order). */
export function lastIndexById(changes: ReadonlyArray<{ id: string }>): Map<string, number> {
  return new Map(changes.map(({ id }, index) => [id, index]));
}
