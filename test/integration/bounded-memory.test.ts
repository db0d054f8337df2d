import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { expect } from "chai";
import hre from "hardhat";

import { createTokenService, type LaunchOutcome, type TokenService } from "../../src/api.js";
import { TOKEN_METADATA_ENTRIES } from "../../src/chains/evm/read/balances.js";
import { LEARNT_SHAPES } from "../../src/chains/evm/write/gas-shapes.js";
import type { RetainedEntries } from "../../src/core/token-service.js";
import { MAX_ERC20_CONTRACTS_PER_READ } from "../../src/domain/requests.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/types.js";
import { fundedWallet, type Pair } from "../helpers/service.js";

const SEPOLIA: Pair = { chain: "ethereum", network: "sepolia" };
const SENDERS = 10;
/** Launches of the first round; the second brings the history to three times as many, past the metadata cache's bound. */
const N = 400;
const WAVE = 100;

// What the service keeps in memory does not grow with its history: after N launches, and after 3N, each followed to
// `mined` and each token's balance read, the tracker holds no record and every cache holds at most its documented
// bound, while the store holds every record (docs/operations.md, "Memory"). Sizes are counted, never times or RSS.
describe("memory the service keeps does not grow with its history (SQLite store, simulated chain)", function () {
  this.timeout(300_000);
  let dataDir: string;
  let store: Store;
  let service: TokenService;
  let senders: Array<{ address: string; privateKey: string }>;
  const launched: LaunchOutcome[] = [];

  before(async function () {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "bounded-memory-"));
    store = await openStore({ dataDir });
    service = await createTokenService({ hre, env: {}, operationStore: store });
    senders = await Promise.all(Array.from({ length: SENDERS }, () => fundedWallet(service, SEPOLIA, (10n ** 24n).toString())));
  });

  after(async function () {
    await service?.close();
    await store?.close();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  /** `count` ERC20 launches from the senders, in waves, each followed to its final state; then every new token's balance read. */
  async function launchAndRead(count: number): Promise<void> {
    const from = launched.length;
    for (let wave = 0; wave < count; wave += WAVE) {
      const outcomes = await Promise.all(
        Array.from({ length: Math.min(WAVE, count - wave) }, async (_, index) => {
          const number = from + wave + index;
          const sender = senders[number % SENDERS]!;
          // Numbers of one width: every launch has the same shape, so the gas learnt for the first serves them all.
          const digits = String(number).padStart(4, "0");
          const token = { name: `Bounded ${digits}`, symbol: `BM${digits}`, initialSupply: "1000" };
          const outcome = await service.operations.launch({
            ...SEPOLIA,
            type: "ERC20",
            token,
            sender: sender.address,
            privateKey: sender.privateKey,
          });
          const settled = await service.operations.settle(outcome, 60_000);
          expect(settled.status, `launch ${number}`).to.equal("mined");
          return outcome;
        }),
      );
      launched.push(...outcomes);
    }
    const contracts = launched.slice(from).map((outcome) => outcome.contractAddress!);
    for (let first = 0; first < contracts.length; first += MAX_ERC20_CONTRACTS_PER_READ) {
      const batch = contracts.slice(first, first + MAX_ERC20_CONTRACTS_PER_READ);
      const read = await service.getBalances({ ...SEPOLIA, address: senders[0]!.address, erc20TokenContractAddresses: batch });
      expect(Object.keys(read.balances)).to.have.length(batch.length + 1);
    }
  }

  function expectBounded(retained: RetainedEntries): void {
    expect(retained.tracker, "the tracker's records in flight").to.deep.equal({ waiters: 0, broadcasting: 0, accepted: 0, own: 0 });
    const chain = retained.chains["ethereum/sepolia"];
    expect(chain, "the pair's caches").to.not.equal(undefined);
    expect(chain!.tokenMetadata).to.be.at.most(TOKEN_METADATA_ENTRIES);
    expect(chain!.gasShapes).to.be.at.most(LEARNT_SHAPES);
  }

  it(`holds no finished record and no more cache entries than its bounds after ${N} launches and after ${3 * N}`, async function () {
    await launchAndRead(N);
    const afterN = service.retained();
    expectBounded(afterN);
    expect(afterN.chains["ethereum/sepolia"]!.tokenMetadata).to.equal(N);

    await launchAndRead(2 * N);
    const after3N = service.retained();
    expectBounded(after3N);
    // Every token read is past the bound: the cache holds the latest ones only.
    expect(after3N.chains["ethereum/sepolia"]!.tokenMetadata).to.equal(TOKEN_METADATA_ENTRIES);
    expect(after3N.chains["ethereum/sepolia"]!.gasShapes).to.equal(afterN.chains["ethereum/sepolia"]!.gasShapes);

    // The history is in the store: the first launch's record is there, mined, with its contract.
    const first = await store.getOperation(launched[0]!.id);
    expect(first).to.include({ status: "mined", contractAddress: launched[0]!.contractAddress });
  });

  it("reads a token whose metadata the cache let go as before: its symbol and decimals are asked again", async function () {
    const evicted = launched[0]!.contractAddress!;
    const read = await service.getBalances({ ...SEPOLIA, address: senders[0]!.address, erc20TokenContractAddresses: [evicted] });
    expect(read.balances.BM0000).to.include({ contractAddress: evicted, symbol: "BM0000", decimals: 18, balance: "1000" });
  });
});
