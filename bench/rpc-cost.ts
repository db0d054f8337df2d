// What following launches costs the node, in JSON-RPC calls through a counting relay in front of a real anvil (mining on
// send), beside the minimum: one send and one receipt per launch, one head read per block (and, idle, one head read per
// poll interval). Counts, not timings: they do not depend on the machine.
import { toQuantity } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { createTokenService } from "../src/api.js";
import { startAnvil } from "../test/helpers/anvil.js";
import { startCountingProxy } from "../test/helpers/json-rpc-servers.js";
import { PAIR, erc20Token } from "./deployments.js";
import type { RatioRow } from "./support.js";

const STEADY = 50;
const BURST = 200;
const RUN = 1_000;
const IDLE_MS = 60_000;
/** A live pair's poll interval. */
const POLL_MS = 1_000;
const SETTLE_MS = 120_000;

export async function rpcCostRows(hre: HardhatRuntimeEnvironment, log: (line: string) => void): Promise<RatioRow[]> {
  const node = await startAnvil();
  const proxy = await startCountingProxy(node.url);
  const service = await createTokenService({ hre, env: {}, rpcUrls: { [`${PAIR.chain}/${PAIR.network}`]: proxy.url } });
  try {
    const owner = service.createWallet(PAIR);
    await node.rpc("anvil_setBalance", [owner.address, toQuantity(10n ** 24n)]);
    const launch = (index: number) =>
      service.operations.launch({ ...PAIR, type: "ERC20", token: erc20Token(index), sender: owner.address, privateKey: owner.privateKey });
    const blocks = async () => Number(await node.rpc("eth_blockNumber"));

    log(`rpc-cost: ${STEADY} launches one after another, each waited mined…`);
    // One launch first, of the same shape (two-digit names): it asks once what the later ones reuse (the chain id, the
    // shape's gas, the suggested priority fee), and its calls are not counted.
    await service.operations.settle(await launch(99), SETTLE_MS);
    let mark = proxy.calls.length;
    let firstBlock = await blocks();
    for (let index = 10; index < 10 + STEADY; index++) await service.operations.settle(await launch(index), SETTLE_MS);
    const steady = { calls: proxy.calls.length - mark, blocks: (await blocks()) - firstBlock };

    log(`rpc-cost: a burst of ${BURST}…`);
    mark = proxy.calls.length;
    firstBlock = await blocks();
    const burstRecords = await Promise.all(Array.from({ length: BURST }, (_, index) => launch(STEADY + index)));
    await Promise.all(burstRecords.map((record) => service.operations.settle(record, SETTLE_MS)));
    const burst = { calls: proxy.calls.length - mark, blocks: (await blocks()) - firstBlock };

    log(`rpc-cost: launches up to ${RUN}, then an idle minute…`);
    for (let first = STEADY + BURST; first < RUN; first += BURST) {
      const records = await Promise.all(Array.from({ length: Math.min(BURST, RUN - first) }, (_, index) => launch(first + index)));
      await Promise.all(records.map((record) => service.operations.settle(record, SETTLE_MS)));
    }
    mark = proxy.calls.length;
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = proxy.calls.length - mark;

    // The minimum: one send and one receipt per launch, one head read per block.
    const minimum = (launches: number, blockCount: number) => (2 * launches + blockCount) / launches;
    const perLaunch = (calls: number, launches: number) => `${(calls / launches).toFixed(2)} calls per launch`;
    return [
      {
        measure: `JSON-RPC calls per launch into anvil (automine), ${STEADY} one after another, each waited mined (all calls: preparation, send, following; after one launch of the same shape)`,
        service: perLaunch(steady.calls, STEADY),
        anchor: `minimum ${minimum(STEADY, steady.blocks).toFixed(2)} (a send and a receipt per launch, a head read per block)`,
        ratio: steady.calls / STEADY / minimum(STEADY, steady.blocks),
        target: "≤ 4 calls per launch (issue 28)",
        met: steady.calls / STEADY <= 4,
      },
      {
        measure: `JSON-RPC calls per launch, a burst of ${BURST} from one sender`,
        service: perLaunch(burst.calls, BURST),
        anchor: `minimum ${minimum(BURST, burst.blocks).toFixed(2)}`,
        ratio: burst.calls / BURST / minimum(BURST, burst.blocks),
        target: "≤ 3 calls per launch",
        met: burst.calls / BURST <= 3,
      },
      {
        measure: `JSON-RPC calls in an idle minute after ${RUN} launches (no new block)`,
        service: `${idle} calls`,
        anchor: `minimum ${IDLE_MS / POLL_MS} (one head read per poll interval while records are watched)`,
        ratio: idle / (IDLE_MS / POLL_MS),
        target: "≤ 60 calls",
        met: idle <= 60,
      },
    ];
  } finally {
    await service.close();
    await proxy.close();
    await node.stop();
  }
}
