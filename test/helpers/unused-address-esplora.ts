import { createServer, type Server } from "node:http";

/**
 * A loopback stand-in for mempool.space's Esplora API that answers `GET /address/:address` as mempool.space does for an
 * address that never received anything (the shape of test/fixtures/esplora/*.json, every count and sum zero), so that
 * a walk-through reading a brand-new testnet address runs without reaching the internet.
 */
export async function startUnusedAddressEsplora(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const zero = { funded_txo_count: 0, funded_txo_sum: 0, spent_txo_count: 0, spent_txo_sum: 0, tx_count: 0 };
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? "");
    const match = /^\/address\/([^/?]+)$/.exec(request.url ?? "");
    if (request.method !== "GET" || !match) return void response.writeHead(404).end("not found");
    const address = decodeURIComponent(match[1]!);
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ address, chain_stats: zero, mempool_stats: zero }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
