import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import type { OperationStore } from "../../src/core/operations/types.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/types.js";
import { fundedWallet } from "../helpers/service.js";

const WRITES = ["insertOperation", "changeOperation", "changeOperations", "leaseDueOperations"] as const;

/**
 * The embedded SQLite store, with its writes sorted by who made them: a tracker's writes name their lease owner
 * (or take leases); a request's do not.
 */
function observedStore(store: Store): { store: OperationStore; requestWrites: string[]; trackerWrites: string[] } {
  const requestWrites: string[] = [];
  const trackerWrites: string[] = [];
  const observed = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (!(WRITES as readonly PropertyKey[]).includes(property)) return value.bind(target);
      return (...args: unknown[]) => {
        const byTracker =
          property === "leaseDueOperations" || property === "changeOperations" || (property === "changeOperation" && args[2] !== undefined);
        (byTracker ? trackerWrites : requestWrites).push(String(property));
        return (value as (...inner: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: observed, requestWrites, trackerWrites };
}

describe("the store's share of a launch: one write on the request's path", function () {
  const pair = { chain: "ethereum", network: "sepolia" };
  let dataDir: string;
  let store: Store;
  let observed: ReturnType<typeof observedStore>;
  let service: TokenService;

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-writes-"));
    store = await openStore({ dataDir });
    observed = observedStore(store);
    service = await createTokenService({ hre, env: {}, operationStore: observed.store });
  });

  after(async function () {
    await service.close();
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("a launch and a mint each write their signed record and nothing else before answering; the tracker writes pending, then mined, in one commit", async function () {
    const wallet = await fundedWallet(service, pair);
    const writesBefore = observed.requestWrites.length;
    const trackerWritesBefore = observed.trackerWrites.length;
    const launch = await service.operations.launch({
      ...pair,
      type: "ERC721",
      token: { name: "Art", symbol: "ART" },
      sender: wallet.address,
      privateKey: wallet.privateKey,
    });
    expect(launch.status).to.equal("pending");
    expect(observed.requestWrites.slice(writesBefore)).to.deep.equal(["insertOperation"]);
    const launched = await service.operations.settle(launch, 30_000);
    expect(launched.status).to.equal("mined");

    const mintWritesBefore = observed.requestWrites.length;
    const mint = await service.operations.mint({
      ...pair,
      type: "ERC721",
      contractAddress: launch.contractAddress,
      to: wallet.address,
      sender: wallet.address,
      privateKey: wallet.privateKey,
    });
    expect(observed.requestWrites.slice(mintWritesBefore)).to.deep.equal(["insertOperation"]);
    const minted = await service.operations.settle(mint, 30_000);
    expect(minted).to.include({ status: "mined", tokenId: "1" });
    // The simulated chain mines as it accepts: each record's first look finds it in a block, and writes both moves at once.
    expect(observed.trackerWrites.slice(trackerWritesBefore).filter((write) => write === "changeOperations")).to.have.length(2);

    const record = await store.getOperation(launch.id);
    expect(record!.transitions.map((transition) => [transition.status, transition.reason])).to.deep.equal([
      ["signed", "signed"],
      ["pending", "accepted by the node"],
      ["mined", `included in block ${record!.blockNumber}`],
    ]);
  });
});
