import type { RunningServer } from "./http-server.js";

/** Every record the test's API key made (`GET /api/v1/operations`, page by page), newest first; null while a page is refused. */
export async function allRecords(api: RunningServer): Promise<Array<{ id: string; status: string; transactionHash?: string }> | null> {
  const items: Array<{ id: string; status: string; transactionHash?: string }> = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: { items: typeof items; nextCursor: string | null } } = await api.call(
      "GET",
      `/api/v1/operations?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    if (page.status !== 200) return null;
    items.push(...page.body.items);
    cursor = page.body.nextCursor;
  } while (cursor);
  return items;
}

const FINAL = new Set(["mined", "failed", "dropped", "cancelled"]);

/** The records once every one of them is final: nothing the service took is still on its way to the node. */
export async function settledRecords(
  api: RunningServer,
  eventually: <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs?: number) => Promise<T>,
  timeoutMs = 60_000,
): Promise<Array<{ id: string; status: string; transactionHash?: string }>> {
  const records = await eventually(
    () => allRecords(api),
    (items) => items !== null && items.every((item) => FINAL.has(item.status)),
    timeoutMs,
  );
  return records!;
}
