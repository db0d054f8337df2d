// Balance reads through the core (`service.getBalances`) on a simulated chain, with K ERC20 contracts per read:
// each K beside K=1 or K=0 measured in the same run, the node calls one read makes, and the memory 10,000 reads keep.
// Two kinds of read: the same holder and tokens again and again (a wallet or dashboard polling: equal reads at one
// chain state share one answer) and a new holder every time (nothing to share: every read asks the node).
import { hexlify, randomBytes } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { createTokenService, type TokenService } from "../src/api.js";
import { readErc20Balances, readNativeBalance } from "../src/chains/evm/read/balances.js";
import { PAIR, PAIR_INFO, erc20Token } from "./deployments.js";
import { collectGarbage, concurrentRate, median, mib, ms, perSecond, sequentialLatencies, type RatioRow } from "./support.js";

const KS = [0, 1, 20, 50] as const;
const signed = (bytes: number) => `${bytes >= 0 ? "+" : "−"}${mib(Math.abs(bytes))}`;
const SEQUENTIAL_READS = 300;
const CALLERS = 20;
const RATE_DURATION_MS = 3_000;
const MEMORY_READS = 10_000;
const MEMORY_K = 20;

async function launchErc20s(service: TokenService, count: number): Promise<{ owner: string; contracts: string[] }> {
  const owner = service.createWallet(PAIR);
  await service.faucet({ ...PAIR, address: owner.address, amount: (10n ** 24n).toString() });
  const launched = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      service.launch({ ...PAIR, type: "erc20", token: erc20Token(index), sender: owner.address, privateKey: owner.privateKey }),
    ),
  );
  await Promise.all(launched.map((launch) => service.waitForTransaction({ ...PAIR, transactionHash: launch.transactionHash })));
  return { owner: owner.address, contracts: launched.map((launch) => launch.contractAddress) };
}

export async function balanceReadRows(hre: HardhatRuntimeEnvironment, log: (line: string) => void): Promise<RatioRow[]> {
  let nodeCalls = 0;
  const service = await createTokenService({ hre, env: {}, onNodeCall: () => nodeCalls++ });
  try {
    log("balance reads: launching 50 ERC20 contracts…");
    const { owner, contracts } = await launchErc20s(service, Math.max(...KS));
    const read = (k: number) => () => service.getBalances({ ...PAIR, address: owner, erc20TokenContractAddresses: contracts.slice(0, k) });
    // A holder never read before (an all-lowercase address is a valid one): the read shares no answer.
    const newRead = (k: number) => () =>
      service.getBalances({ ...PAIR, address: hexlify(randomBytes(20)), erc20TokenContractAddresses: contracts.slice(0, k) });

    const p50 = new Map<number, number>();
    const newP50 = new Map<number, number>();
    const callsPerRead = new Map<number, number>();
    let rssBefore = 0;
    let rssAfter = 0;
    let heapBefore = 0;
    let heapAfter = 0;
    for (const k of KS) {
      // Before K=50: a node that refuses one reader call is read contract by contract from then on.
      if (k === 50) {
        log(`balance reads: RSS across ${MEMORY_READS.toLocaleString("en-US")} reads…`);
        // A first batch lets the heap reach its working size, so the measured batch shows what reads keep, not start-up.
        await concurrentRate(CALLERS, newRead(MEMORY_K), { total: MEMORY_READS / 5 });
        collectGarbage();
        rssBefore = process.memoryUsage().rss;
        heapBefore = process.memoryUsage().heapUsed;
        await concurrentRate(CALLERS, newRead(MEMORY_K), { total: MEMORY_READS });
        collectGarbage();
        rssAfter = process.memoryUsage().rss;
        heapAfter = process.memoryUsage().heapUsed;
      }
      log(`balance reads: K=${k} sequential…`);
      // Warm-up: JIT, and the first read of a contract caches its symbol and decimals.
      for (let index = 0; index < 20; index++) await newRead(k)();
      const before = nodeCalls;
      newP50.set(k, median(await sequentialLatencies(SEQUENTIAL_READS, newRead(k))));
      callsPerRead.set(k, (nodeCalls - before) / SEQUENTIAL_READS);
      for (let index = 0; index < 20; index++) await read(k)();
      p50.set(k, median(await sequentialLatencies(SEQUENTIAL_READS, read(k))));
    }
    // The path a node that refuses the reader's creation code gets: one call per contract, issued together.
    log("balance reads: K=20 through the per-contract path…");
    const chain = await service.evmChain(PAIR_INFO, "balance read");
    const perContract = () => Promise.all([readNativeBalance(chain, owner), readErc20Balances(chain, owner, contracts.slice(0, 20))]);
    for (let index = 0; index < 20; index++) await perContract();
    const perContractBefore = nodeCalls;
    const perContractP50 = median(await sequentialLatencies(SEQUENTIAL_READS, perContract));
    const perContractCalls = (nodeCalls - perContractBefore) / SEQUENTIAL_READS;

    log(`balance reads: ${CALLERS} concurrent callers, K=0 and K=50…`);
    const rateK0 = await concurrentRate(CALLERS, read(0), { durationMs: RATE_DURATION_MS });
    const rateK50 = await concurrentRate(CALLERS, read(50), { durationMs: RATE_DURATION_MS });
    log(`balance reads: ${CALLERS} concurrent callers, K=0 and K=50, a new holder every read…`);
    const newRateK0 = await concurrentRate(CALLERS, newRead(0), { durationMs: RATE_DURATION_MS });
    const newRateK50 = await concurrentRate(CALLERS, newRead(50), { durationMs: RATE_DURATION_MS });

    const k20OverK1 = p50.get(20)! / p50.get(1)!;
    const k50OverK0 = rateK50.perSecond / rateK0.perSecond;
    const calls = KS.map((k) => callsPerRead.get(k)!);
    return [
      {
        measure: `balance read p50, K=20 ERC20 contracts vs K=1 (${SEQUENTIAL_READS} sequential reads each, the same holder: shared answers)`,
        service: `K=20 ${ms(p50.get(20)!)} (K=50 ${ms(p50.get(50)!)})`,
        anchor: `K=1 ${ms(p50.get(1)!)} (K=0 ${ms(p50.get(0)!)})`,
        ratio: k20OverK1,
        target: "≤ 1.3",
        met: k20OverK1 <= 1.3,
      },
      {
        measure: `balance reads/s at ${CALLERS} concurrent callers, K=50 vs K=0 (the same holder: shared answers)`,
        service: `K=50 ${perSecond(rateK50.perSecond)}`,
        anchor: `K=0 ${perSecond(rateK0.perSecond)}`,
        ratio: k50OverK0,
        target: "≥ 0.5",
        met: k50OverK0 >= 0.5,
      },
      {
        measure: `balance read p50, K=20 vs K=1, a new holder every read (every read asks the node)`,
        service: `K=20 ${ms(newP50.get(20)!)} (K=50 ${ms(newP50.get(50)!)})`,
        anchor: `K=1 ${ms(newP50.get(1)!)} (K=0 ${ms(newP50.get(0)!)})`,
        ratio: newP50.get(20)! / newP50.get(1)!,
        target: "reported",
      },
      {
        measure: `balance reads/s at ${CALLERS} concurrent callers, K=50 vs K=0, a new holder every read`,
        service: `K=50 ${perSecond(newRateK50.perSecond)}`,
        anchor: `K=0 ${perSecond(newRateK0.perSecond)}`,
        ratio: newRateK50.perSecond / newRateK0.perSecond,
        target: "reported",
      },
      {
        measure: `node calls per balance read of a new holder, K = ${KS.join(" / ")}`,
        service: `${calls.map((value) => value.toFixed(2).replace(/\.00$/, "")).join(" / ")}${
          calls.some((value) => value > 1)
            ? " (more than 1: the node refused the reader's eth_call and the chain fell back to per-contract reads)"
            : ""
        }`,
        anchor: `per-contract path (the fallback), K=20: ${perContractCalls} calls, p50 ${ms(perContractP50)}`,
        target: "1 whatever K",
        met: calls.every((value) => value === 1),
      },
      {
        measure: `RSS growth per ${MEMORY_READS.toLocaleString("en-US")} balance reads (K=${MEMORY_K}, ${CALLERS} callers, new holders, after GC)`,
        service: `RSS ${signed(rssAfter - rssBefore)}, V8 heap used ${signed(heapAfter - heapBefore)}`,
        anchor: `before: RSS ${mib(rssBefore)}, heap used ${mib(heapBefore)}`,
        target: "reported",
      },
    ];
  } finally {
    await service.close();
  }
}
