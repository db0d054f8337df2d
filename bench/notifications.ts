// Chain notifications (docs/notifications.md, issue 30) on a real anvil node: the HTTP service in this process, its
// ethereum/sepolia endpoint a counting relay in front of anvil (`--no-mining`: the bench mines each block itself and
// notes when), 100 watched addresses each with an address subscription, one webhook receiver on loopback. Three
// measures, each beside its anchor in the same run:
// - block → webhook lag of 10,000 ERC-20 transfers among the watched addresses (each an `out` and an `in`: 20,000
//   events, each to arrive exactly once), beside what polling the head once per poll interval alone costs;
// - a backfill's rate (a subscription with `fromBlock` at the first transfer's block) beside a plain loop of
//   `eth_getLogs` over the same blocks, straight to anvil, the faster of 500- and 2,000-block ranges (with the blocks
//   read too for an address that watches native currency: no log shows it);
// - JSON-RPC calls per new block with 100 subscriptions beside 1.
// The transfers are signed beforehand with ethers and sent straight to anvil, not through the service.
import { getCreateAddress, Interface, parseUnits, toQuantity, Transaction, Wallet } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { TRANSFER_TOPICS } from "../src/core/notifications/transfer-logs.js";
import { DEFAULT_SCAN_SETTINGS } from "../src/core/notifications/scanner.js";
import { ANVIL_ACCOUNT, type AnvilNode, startAnvil } from "../test/helpers/anvil.js";
import { type CountingProxy, startCountingProxy } from "../test/helpers/json-rpc-servers.js";
import { until } from "../test/helpers/until.js";
import { erc20DeploymentData, PAIR, PAIR_INFO, randomSigner } from "./deployments.js";
import { median, percentile, ratio, type RatioRow, REPETITIONS } from "./support.js";
import { type Arrival, batch, callsSince, startReceiver, startService, totalCalls } from "./notification-rig.js";

const WATCHED = 100;
/** The first few watched addresses send; every transfer goes to another watched address. */
const SENDERS = 10;
const TRANSFERS = 10_000;
const TRANSFERS_PER_BLOCK = 5;
/** One block every this long while the transfers go out (20 blocks/s, 200 events/s). */
const BLOCK_INTERVAL_MS = 50;
/** Blocks mined (one transfer each) while the calls are counted, with 1 subscription and then with 100. */
const COST_BLOCKS = 30;
const COST_INTERVAL_MS = 500;
/** The scan's widest unfiltered range, and the anchor's narrower one. */
const RANGE = DEFAULT_SCAN_SETTINGS.maxRange;
/** The anchor also reads in ranges as wide as the scan's filtered reads. */
const WIDE_RANGE = DEFAULT_SCAN_SETTINGS.maxFilteredRange;
/** A live pair's poll interval (src/chains/evm/live-chain.ts): the scan reads the head at most once per interval. */
const POLL_MS = 1_000;
const DRAIN_TIMEOUT_MS = 300_000;
const GAS_LIMIT = 100_000n;
const MAX_FEE = parseUnits("10", "gwei");
const PRIORITY_FEE = parseUnits("1", "gwei");
const ERC20 = new Interface(["function transfer(address to, uint256 value) returns (bool)"]);

export async function notificationRows(_hre: HardhatRuntimeEnvironment, log: (line: string) => void): Promise<RatioRow[]> {
  const node = await startAnvil({ chainId: PAIR_INFO.chainId, args: ["--no-mining"] });
  const proxy = await startCountingProxy(node.url, { countOnly: true });
  const receiver = await startReceiver();
  const service = await startService(proxy.url);
  try {
    return await measure(node, proxy, receiver, service, log);
  } finally {
    await service.close();
    await receiver.close();
    await proxy.close();
    await node.stop();
  }
}

async function measure(
  node: AnvilNode,
  proxy: CountingProxy,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  service: Awaited<ReturnType<typeof startService>>,
  log: (line: string) => void,
): Promise<RatioRow[]> {
  const { call } = service;
  const expectStatus = (answer: { status: number; body: unknown }, status: number, what: string) => {
    if (answer.status !== status) throw new Error(`${what}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const webhook = await call("POST", "/api/v1/webhooks", { url: receiver.url, events: ["chain.activity"] });
  expectStatus(webhook, 201, "the webhook");

  // The token and its holders, before any subscription (the scan starts after them).
  const watched = Array.from({ length: WATCHED }, () => randomSigner());
  const senders = watched.slice(0, SENDERS);
  const nonces = new Map<string, number>(senders.map((sender) => [sender.address, 0]));
  let head = Number(await node.rpc("eth_blockNumber"));
  /** When each block the bench mined came back from evm_mine (Date.now(), ms). */
  const minedAt = new Map<number, number>();
  const mine = async () => {
    await node.rpc("evm_mine");
    minedAt.set(++head, Date.now());
    return head;
  };
  const deployer = new Wallet(ANVIL_ACCOUNT.privateKey);
  const deployerNonce = Number(await node.rpc("eth_getTransactionCount", [deployer.address, "latest"]));
  const token = getCreateAddress({ from: deployer.address, nonce: deployerNonce });
  const sign = (wallet: Wallet, nonce: number, fields: { to?: string; data: string; gasLimit: bigint }) =>
    wallet.signTransaction(
      Transaction.from({
        type: 2,
        chainId: PAIR_INFO.chainId,
        nonce,
        maxFeePerGas: MAX_FEE,
        maxPriorityFeePerGas: PRIORITY_FEE,
        value: 0n,
        ...fields,
      }),
    );
  const transfer = (from: Wallet, to: string, amount = 1n) => {
    const nonce = nonces.get(from.address)!;
    nonces.set(from.address, nonce + 1);
    return sign(from, nonce, { to: token, data: ERC20.encodeFunctionData("transfer", [to, amount]), gasLimit: GAS_LIMIT });
  };
  const send = async (raws: string[]) => {
    const hashes = (await batch(
      node.url,
      raws.map((raw) => ({ method: "eth_sendRawTransaction", params: [raw] })),
    )) as string[];
    return hashes.map((hash) => hash.toLowerCase());
  };
  const setUp = [await sign(deployer, deployerNonce, { data: erc20DeploymentData(deployer.address, 0), gasLimit: 5_000_000n })];
  for (const [index, sender] of senders.entries()) {
    setUp.push(
      await sign(deployer, deployerNonce + 1 + index, {
        to: token,
        data: ERC20.encodeFunctionData("transfer", [sender.address, 50_000n]),
        gasLimit: GAS_LIMIT,
      }),
    );
    await node.rpc("anvil_setBalance", [sender.address, toQuantity(10n ** 24n)]);
  }
  const setUpHashes = await send(setUp);
  await mine();
  const setUpReceipts = (await batch(
    node.url,
    setUpHashes.map((hash) => ({ method: "eth_getTransactionReceipt", params: [hash] })),
  )) as Array<{ status: string } | null>;
  if (!setUpReceipts.every((receipt) => receipt?.status === "0x1"))
    throw new Error(
      `the token or its distribution failed: statuses ${setUpReceipts.map((receipt) => receipt?.status ?? "none").join(", ")}`,
    );

  const subscribe = async (body: Record<string, unknown>) =>
    expectStatus(await call("POST", "/api/v1/subscriptions", { ...PAIR, confirmations: 1, ...body }), 201, "a subscription") as {
      id: string;
      backfillNext: number | null;
    };
  const arrivalsOf = (subscriptionIds: Set<string>) => receiver.arrivals.filter((arrival) => subscriptionIds.has(arrival.subscriptionId));
  /** Mines one block holding one transfer (senders[1] → watched[0]) and waits until the webhook got its events. */
  const oneTransferBlock = async (subscriptionIds: Set<string>, events: number) => {
    const [hash] = await send([await transfer(senders[1]!, watched[0]!.address)]);
    await mine();
    await until(
      () => arrivalsOf(subscriptionIds).filter((arrival) => arrival.txHash === hash).length >= events,
      "a block's transfer delivered",
      30_000,
    );
  };

  // JSON-RPC calls per new block: N blocks of one transfer each, one every COST_INTERVAL_MS, with 1 subscription and
  // then with 100 (the transfer is watched by both: the scan has something to find in every block).
  const callsPerBlock = async (subscriptionIds: Set<string>, events: number) => {
    // Two blocks first, not counted: the scan is running and caught up.
    for (let warmUp = 0; warmUp < 2; warmUp++) await oneTransferBlock(subscriptionIds, events);
    const before = new Map(proxy.counts);
    const mark = totalCalls(proxy);
    const start = performance.now();
    let lastHash = "";
    for (let block = 0; block < COST_BLOCKS; block++) {
      const due = start + block * COST_INTERVAL_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      lastHash = (await send([await transfer(senders[1]!, watched[0]!.address)]))[0]!;
      await mine();
    }
    // Until the last block's events are in: the calls that found them are counted, and the same tail for each side.
    await until(
      () => arrivalsOf(subscriptionIds).filter((arrival) => arrival.txHash === lastHash).length >= events,
      "the last counted block delivered",
      30_000,
    );
    return { perBlock: (totalCalls(proxy) - mark) / COST_BLOCKS, byMethod: callsSince(proxy, before) };
  };
  const describeCalls = (byMethod: Map<string, number>) =>
    [...byMethod]
      .sort((a, b) => b[1] - a[1])
      .map(([method, count]) => `${method} ${(count / COST_BLOCKS).toFixed(2)}`)
      .join(", ");

  log(`notifications: calls per block, 1 subscription, ${COST_BLOCKS} blocks one every ${COST_INTERVAL_MS} ms…`);
  const single = await subscribe({ address: watched[0]!.address });
  const oneSubscription = await callsPerBlock(new Set([single.id]), 1);
  log(`notifications: 1 subscription: ${oneSubscription.perBlock.toFixed(2)} calls/block (${describeCalls(oneSubscription.byMethod)})`);
  expectStatus(await call("DELETE", `/api/v1/subscriptions/${single.id}`), 204, "deleting the single subscription");

  log(`notifications: ${WATCHED} subscriptions…`);
  const subscriptionOf = new Map<string, string>();
  for (const wallet of watched) subscriptionOf.set(wallet.address, (await subscribe({ address: wallet.address })).id);
  const watchedIds = new Set(subscriptionOf.values());
  const hundredSubscriptions = await callsPerBlock(watchedIds, 2);
  log(
    `notifications: ${WATCHED} subscriptions: ${hundredSubscriptions.perBlock.toFixed(2)} calls/block (${describeCalls(hundredSubscriptions.byMethod)})`,
  );

  // 10,000 transfers among the watched addresses, signed beforehand, TRANSFERS_PER_BLOCK a block.
  log(`notifications: signing ${TRANSFERS.toLocaleString("en-US")} transfers…`);
  const blocks: string[][] = [];
  /** Each transfer's expected events: `${txHash}:${direction}:${subscriptionId}`. */
  const expected = new Set<string>();
  const plan: Array<{ from: Wallet; to: string }> = [];
  for (let index = 0; index < TRANSFERS; index++) {
    const senderIndex = index % SENDERS;
    // Another watched address than the sender's, every one of them in turn.
    const recipientIndex = (senderIndex + 1 + (Math.floor(index / SENDERS) % (WATCHED - 1))) % WATCHED;
    plan.push({ from: senders[senderIndex]!, to: watched[recipientIndex]!.address });
  }
  for (let first = 0; first < TRANSFERS; first += TRANSFERS_PER_BLOCK) {
    const raws: string[] = [];
    for (const { from, to } of plan.slice(first, first + TRANSFERS_PER_BLOCK)) raws.push(await transfer(from, to));
    blocks.push(raws);
  }
  const hashOf = (raw: string) => Transaction.from(raw).hash!.toLowerCase();
  const transferHashes = new Set<string>();
  blocks.flat().forEach((raw, index) => {
    const hash = hashOf(raw);
    transferHashes.add(hash);
    expected.add(`${hash}:out:${subscriptionOf.get(plan[index]!.from.address)}`);
    expected.add(`${hash}:in:${subscriptionOf.get(plan[index]!.to)}`);
  });

  log(`notifications: ${TRANSFERS.toLocaleString("en-US")} transfers in ${blocks.length} blocks, one every ${BLOCK_INTERVAL_MS} ms…`);
  const firstBlock = head + 1;
  const sendStart = performance.now();
  for (const [index, raws] of blocks.entries()) {
    const due = sendStart + index * BLOCK_INTERVAL_MS;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    await send(raws);
    await mine();
  }
  const lastBlock = head;
  const sendSeconds = (performance.now() - sendStart) / 1000;
  const lastMinedAt = minedAt.get(lastBlock)!;
  const part = () => receiver.arrivals.filter((arrival) => transferHashes.has(arrival.txHash));
  const drainStart = Date.now();
  let drained = true;
  try {
    await until(
      () => new Set(part().map((arrival) => arrival.id)).size >= expected.size,
      "every transfer's events delivered",
      DRAIN_TIMEOUT_MS,
      50,
    );
  } catch {
    drained = false;
  }
  // A moment more for a duplicate to show.
  await new Promise((resolve) => setTimeout(resolve, 2 * POLL_MS));
  log(
    `notifications: sent in ${sendSeconds.toFixed(1)} s; delivered ${drained ? "" : "NOT all "}within ${((Date.now() - drainStart) / 1000).toFixed(1)} s after`,
  );

  // Every block held what was sent to it: the lag is counted from the block each transfer is in.
  const counts = (await batch(
    node.url,
    Array.from({ length: lastBlock - firstBlock + 1 }, (_, offset) => ({
      method: "eth_getBlockTransactionCountByNumber",
      params: [toQuantity(firstBlock + offset)],
    })),
  )) as string[];
  const misplaced = counts.filter((count) => Number(count) !== TRANSFERS_PER_BLOCK).length;

  const arrived = part();
  const seen = new Map<string, number>();
  for (const arrival of arrived) seen.set(arrival.id, (seen.get(arrival.id) ?? 0) + 1);
  const duplicated = [...seen.values()].filter((times) => times > 1).length;
  const keys = new Set(arrived.map((arrival) => `${arrival.txHash}:${arrival.direction}:${arrival.subscriptionId}`));
  const missing = [...expected].filter((key) => !keys.has(key)).length;
  const unexpected = [...keys].filter((key) => !expected.has(key)).length;
  const firsts = new Map<string, Arrival>();
  for (const arrival of arrived) if (!firsts.has(arrival.id)) firsts.set(arrival.id, arrival);
  const lags = [...firsts.values()].map((arrival) => arrival.at - minedAt.get(arrival.blockNumber)!);
  const scanLags = [...firsts.values()].map((arrival) => arrival.queuedAt - minedAt.get(arrival.blockNumber)!);
  const deliveryLags = [...firsts.values()].map((arrival) => arrival.at - arrival.queuedAt);
  const lastArrival = Math.max(...arrived.map((arrival) => arrival.at));
  const firstArrival = Math.min(...arrived.map((arrival) => arrival.at));
  const exact = drained && misplaced === 0 && duplicated === 0 && missing === 0 && unexpected === 0 && arrived.length === expected.size;
  log(
    `notifications: ${arrived.length} arrivals, ${seen.size} distinct ids of ${expected.size} expected; ${missing} missing, ` +
      `${duplicated} ids more than once, ${unexpected} unexpected, ${misplaced} blocks not holding ${TRANSFERS_PER_BLOCK}; ` +
      `lag p50 ${percentile(lags, 50)} ms p99 ${percentile(lags, 99)} ms max ${Math.max(...lags)} ms; ` +
      `queued p50 ${percentile(scanLags, 50)} / p99 ${percentile(scanLags, 99)} ms after the block, delivered p50 ${percentile(deliveryLags, 50)} / p99 ${percentile(deliveryLags, 99)} ms after queued; ` +
      `last arrival ${lastArrival - lastMinedAt} ms after the last block`,
  );

  // How the lag moved over the run: each 10 s of blocks, its p50 and its worst.
  const windows = new Map<number, number[]>();
  for (const arrival of firsts.values()) {
    const window = Math.floor((minedAt.get(arrival.blockNumber)! - minedAt.get(firstBlock)!) / 10_000);
    windows.set(window, [...(windows.get(window) ?? []), arrival.at - minedAt.get(arrival.blockNumber)!]);
  }
  log(
    `notifications: lag by 10 s of blocks (p50/max ms): ${[...windows]
      .sort((a, b) => a[0] - b[0])
      .map(([window, samples]) => `${window * 10}s ${percentile(samples, 50)}/${Math.max(...samples)}`)
      .join(", ")}`,
  );

  // Backfills over the transfers' blocks beside eth_getLogs over the same ranges, alternating, REPETITIONS times each.
  const span = lastBlock - firstBlock + 1;
  /**
   * The anchor: eth_getLogs over the same blocks in `range`-block ranges; `withBlocks`, each range's blocks with their
   * transactions too (batches of 100).
   */
  const anchorScan = async (filter: Record<string, unknown>, withBlocks = false, range = RANGE) => {
    const start = performance.now();
    let logs = 0;
    for (let from = firstBlock; from <= lastBlock; from += range) {
      const to = Math.min(lastBlock, from + range - 1);
      const [answer] = (await batch(node.url, [
        { method: "eth_getLogs", params: [{ fromBlock: toQuantity(from), toBlock: toQuantity(to), ...filter }] },
      ])) as [unknown[]];
      logs += answer.length;
      for (let first = from; withBlocks && first <= to; first += 100) {
        await batch(
          node.url,
          Array.from({ length: Math.min(100, to - first + 1) }, (_, offset) => ({
            method: "eth_getBlockByNumber",
            params: [toQuantity(first + offset), true],
          })),
        );
      }
    }
    return { blocksPerSecond: (span / (performance.now() - start)) * 1000, logs };
  };
  const countEvents = async (id: string) => {
    let count = 0;
    let after: string | undefined;
    for (;;) {
      const page = expectStatus(
        await call("GET", `/api/v1/subscriptions/${id}/events?limit=100${after ? `&after=${encodeURIComponent(after)}` : ""}`),
        200,
        "a page of events",
      ) as { items: unknown[]; nextCursor: string };
      if (page.items.length === 0) return count;
      count += page.items.length;
      after = page.nextCursor;
    }
  };
  const serviceBackfill = async (body: Record<string, unknown>, delivered: boolean) => {
    const before = new Map(proxy.counts);
    const start = performance.now();
    const made = await subscribe({ ...body, fromBlock: firstBlock });
    if (made.backfillNext === null) throw new Error("the backfill subscription has nothing to backfill");
    await until(
      async () =>
        (
          expectStatus(await call("GET", `/api/v1/subscriptions/${made.id}`), 200, "the backfill subscription") as {
            backfillNext: number | null;
          }
        ).backfillNext === null,
      "the backfill done",
      DRAIN_TIMEOUT_MS,
      10,
    );
    const elapsed = performance.now() - start;
    const calls = callsSince(proxy, before);
    const events = await countEvents(made.id);
    // Its webhook deliveries drained before anything else is timed: they would take this process's CPU from the next.
    if (delivered) await until(() => arrivalsOf(new Set([made.id])).length >= events, "the backfill's deliveries", DRAIN_TIMEOUT_MS);
    expectStatus(await call("DELETE", `/api/v1/subscriptions/${made.id}`), 204, "deleting the backfill subscription");
    return { blocksPerSecond: (span / elapsed) * 1000, events, elapsed, calls };
  };
  const topics = { topics: [Object.values(TRANSFER_TOPICS)] };
  const backfillKinds = [
    {
      label: "address subscription, every asset (the default: its blocks read with their transactions for native currency)",
      body: (repetition: number) => ({ address: senders[repetition % SENDERS]!.address }),
      expectedEvents: (repetition: number) =>
        [...expected].filter((key) => key.endsWith(`:${subscriptionOf.get(senders[repetition % SENDERS]!.address)}`)).length,
      filter: topics,
      anchor: "eth_getLogs of the token transfer topics",
      withBlocks: true,
      delivered: true,
      // No log records native currency: the anchor a client can meet reads the blocks too.
      target: "≥ 0.5 of eth_getLogs with the blocks read",
    },
    {
      label: 'address subscription, assets ["erc20"] (logs and the range\'s end headers only)',
      body: (repetition: number) => ({ address: senders[repetition % SENDERS]!.address, assets: ["erc20"] }),
      expectedEvents: (repetition: number) =>
        [...expected].filter((key) => key.endsWith(`:${subscriptionOf.get(senders[repetition % SENDERS]!.address)}`)).length,
      filter: topics,
      anchor: "eth_getLogs of the token transfer topics",
      withBlocks: false,
      delivered: true,
      target: "≥ 0.5",
    },
    {
      label: "contract subscription on the token, every event (each of its 10,000 logs an event)",
      body: () => ({ contract: token }),
      expectedEvents: () => TRANSFERS,
      filter: { address: token },
      anchor: "eth_getLogs of the token's address",
      withBlocks: false,
      delivered: false,
      // Each of the 10,000 logs is an event written durably (the event and its feed entry): reported.
      target: "reported",
    },
  ];
  const backfillRows: RatioRow[] = [];
  for (const kind of backfillKinds) {
    const services: number[] = [];
    const anchors: number[] = [];
    const plainRatios: number[] = [];
    const ratios: number[] = [];
    let wrongCounts = 0;
    let anchorLogs = 0;
    const figures = { narrow: [] as number[], wide: [] as number[], withBlocks: [] as number[] };
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      log(
        `notifications: backfill of ${span} blocks ${repetition + 1}/${REPETITIONS}, ${kind.label.split(" (")[0]}: eth_getLogs in ${RANGE}- and ${WIDE_RANGE}-block ranges${kind.withBlocks ? ", then with the blocks" : ""}, then the service…`,
      );
      // The plain scan at its faster range: the service's own reads span up to 2,000 blocks where the node filters them.
      const narrow = await anchorScan(kind.filter);
      const wide = await anchorScan(kind.filter, false, WIDE_RANGE);
      const plain = Math.max(narrow.blocksPerSecond, wide.blocksPerSecond);
      anchorLogs = narrow.logs;
      figures.narrow.push(narrow.blocksPerSecond);
      figures.wide.push(wide.blocksPerSecond);
      const withBlocks = kind.withBlocks ? (await anchorScan(kind.filter, true)).blocksPerSecond : undefined;
      if (withBlocks !== undefined) figures.withBlocks.push(withBlocks);
      const backfill = await serviceBackfill(kind.body(repetition), kind.delivered);
      if (backfill.events !== kind.expectedEvents(repetition)) wrongCounts++;
      log(
        `notifications: eth_getLogs ${Math.round(narrow.blocksPerSecond)} / ${Math.round(wide.blocksPerSecond)} blocks/s (${narrow.logs} logs)${withBlocks === undefined ? "" : `, with the blocks ${Math.round(withBlocks)} blocks/s`}, the backfill ${Math.round(backfill.blocksPerSecond)} blocks/s ` +
          `(${backfill.events} events, ${kind.expectedEvents(repetition)} expected; ${Math.round(backfill.elapsed)} ms; node calls ${[...backfill.calls].map(([method, count]) => `${method} ${count}`).join(", ")})`,
      );
      const anchor = withBlocks ?? plain;
      anchors.push(anchor);
      services.push(backfill.blocksPerSecond);
      plainRatios.push(backfill.blocksPerSecond / plain);
      ratios.push(backfill.blocksPerSecond / anchor);
    }
    const shown = median(ratios);
    const plainText =
      `${kind.anchor}, straight to anvil, the faster of ${RANGE}-block ranges (${Math.round(median(figures.narrow)).toLocaleString("en-US")} blocks/s) ` +
      `and ${WIDE_RANGE}-block ranges (${Math.round(median(figures.wide)).toLocaleString("en-US")} blocks/s), ${anchorLogs.toLocaleString("en-US")} logs`;
    backfillRows.push({
      measure: `backfill rate, ${span.toLocaleString("en-US")} blocks holding ${TRANSFERS.toLocaleString("en-US")} transfers (fromBlock at the first), ${kind.label}`,
      service: `${Math.round(median(services)).toLocaleString("en-US")} blocks/s${wrongCounts > 0 ? `; **${wrongCounts} of ${REPETITIONS} found another number of events**` : ""}`,
      anchor: kind.withBlocks
        ? `the same with the blocks and their transactions read (batches of 100, as the scan reads them for native currency): ${Math.round(median(anchors)).toLocaleString("en-US")} blocks/s; ` +
          `${plainText} alone: the backfill ${ratio(median(plainRatios))} of that`
        : plainText,
      ratio: shown,
      ratios,
      target: kind.target,
      met: kind.target === "reported" ? undefined : shown >= 0.5 && wrongCounts === 0,
    });
  }

  if (service.warnings.length > 0)
    log(`notifications: the service warned ${service.warnings.length} times; the first: ${service.warnings[0]}`);
  const callsRatio = hundredSubscriptions.perBlock / oneSubscription.perBlock;
  const lagShape = `${TRANSFERS.toLocaleString("en-US")} ERC-20 transfers among ${WATCHED} watched addresses (${SENDERS} of them sending), ${blocks.length.toLocaleString("en-US")} blocks of ${TRANSFERS_PER_BLOCK}, one every ${BLOCK_INTERVAL_MS} ms`;
  const split = (p: number) =>
    `queued ${percentile(scanLags, p).toLocaleString("en-US")} ms after the block, delivered ${percentile(deliveryLags, p).toLocaleString("en-US")} ms after queued`;
  return [
    {
      measure: `block → webhook lag p50, ${lagShape}`,
      service: `${percentile(lags, 50).toLocaleString("en-US")} ms (${split(50)})`,
      anchor: `polling the head once per ${POLL_MS / 1000} s poll interval alone: ${POLL_MS / 2} ms`,
      ratio: percentile(lags, 50) / (POLL_MS / 2),
      target: "reported",
    },
    {
      measure: `block → webhook lag p99, the same`,
      service: `${percentile(lags, 99).toLocaleString("en-US")} ms (${split(99)}); max ${Math.max(...lags).toLocaleString("en-US")} ms`,
      anchor: `polling alone: ${((POLL_MS * 99) / 100).toLocaleString("en-US")} ms`,
      ratio: percentile(lags, 99) / ((POLL_MS * 99) / 100),
      target: "reported",
    },
    {
      measure: `events delivered, the same (each transfer an out and an in), by data.id`,
      service:
        `${seen.size.toLocaleString("en-US")} ids in ${arrived.length.toLocaleString("en-US")} arrivals: ${missing} missing, ${duplicated} more than once, ${unexpected} unexpected; ` +
        `${Math.round((arrived.length / Math.max(1, lastArrival - firstArrival)) * 1000).toLocaleString("en-US")} /s while they came, the last ${(lastArrival - lastMinedAt).toLocaleString("en-US")} ms after the last block`,
      anchor: `${expected.size.toLocaleString("en-US")} expected (sent at ${Math.round(expected.size / sendSeconds).toLocaleString("en-US")} events/s)`,
      target: "each exactly once",
      met: exact,
    },
    ...backfillRows,
    {
      measure: `JSON-RPC calls per new block (one transfer each, one block every ${COST_INTERVAL_MS} ms, ${COST_BLOCKS} blocks), ${WATCHED} address subscriptions vs 1`,
      service: `${WATCHED} subscriptions: ${hundredSubscriptions.perBlock.toFixed(2)} calls/block (${describeCalls(hundredSubscriptions.byMethod)})`,
      anchor: `1 subscription: ${oneSubscription.perBlock.toFixed(2)} calls/block (${describeCalls(oneSubscription.byMethod)})`,
      ratio: callsRatio,
      target: `1.0 (calls do not grow with subscriptions; ≤ ${ratio(1.1)} allowing for where the polls fall)`,
      met: callsRatio <= 1.1,
    },
  ];
}
