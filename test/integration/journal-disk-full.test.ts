import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "chai";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import { ChainJournal } from "../../src/chains/evm/journal.js";
import { isTokenServiceError } from "../../src/domain/errors.js";
import { smallDisk, type SmallDisk } from "../helpers/tmpfs.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };

describe("a simulated chain's journal on a full disk (a real tmpfs): nothing acknowledged is lost", function () {
  let disk: SmallDisk;

  beforeEach(async function () {
    disk = await smallDisk("2m");
  });

  afterEach(async function () {
    await disk?.remove();
  });

  it("refuses an append it cannot sync with STORAGE_UNAVAILABLE, leaves no part of it in the file, and appends again once there is room", async function () {
    const journal = new ChainJournal(path.join(disk.path, "chains", "pair.jsonl"));
    await journal.append({ op: "fund", address: "0x0000000000000000000000000000000000000001", amount: "1" });
    disk.fill();
    const big = { op: "rawTransaction" as const, raw: `0x${"ab".repeat(20_000)}` };
    const refusal = await journal.append(big).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isTokenServiceError(refusal, "STORAGE_UNAVAILABLE"), String(refusal)).to.equal(true);
    expect((refusal as Error).message).to.include("the disk is full");
    disk.unfill();
    await journal.append({ op: "fund", address: "0x0000000000000000000000000000000000000002", amount: "2" });
    await journal.close();
    const lines = (await readFile(journal.path, "utf8")).split("\n");
    expect(lines.slice(0, -1).map((line) => JSON.parse(line).amount)).to.deep.equal(["1", "2"]);
    expect(await new ChainJournal(journal.path).read()).to.include({ rejectedLines: 0, tornBytes: 0 });
  });

  it("answers a launch it cannot journal with STORAGE_UNAVAILABLE before anything runs, frees the nonce, and every launch it acknowledged is back after a restart", async function () {
    let service: TokenService | undefined = await createTokenService({ hre, env: {}, dataDir: disk.path, blockTimeSeconds: 0 });
    try {
      const wallet = service.createWallet(SEPOLIA);
      await service.faucet({ ...SEPOLIA, address: wallet.address });
      const launch = (name: string) =>
        service!.launch({
          ...SEPOLIA,
          type: "ERC20",
          token: { name, symbol: "FULL" },
          sender: wallet.address,
          privateKey: wallet.privateKey,
        });
      const acknowledged = [await launch("Before")];
      disk.fill();
      const refused = await launch("Refused").then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isTokenServiceError(refused, "STORAGE_UNAVAILABLE"), String(refused)).to.equal(true);
      const chain = await service.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "read");
      expect(await chain.provider.getTransactionCount(wallet.address), "nothing was executed").to.equal(1);
      disk.unfill();
      const after = await launch("After");
      expect(after.nonce, "the refused launch's nonce is free again").to.equal(1);
      acknowledged.push(after);
      for (const outcome of acknowledged) expect((await service.operations.settle(outcome, 30_000)).status).to.equal("mined");
      await service.close();
      service = undefined;

      service = await createTokenService({ hre, env: {}, dataDir: disk.path, blockTimeSeconds: 0 });
      const [replay] = await service.evm.openJournaled();
      expect(replay).to.include({ rejectedLines: 0, tornBytes: 0 });
      const reopened = await service.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "read");
      for (const outcome of acknowledged)
        expect(await reopened.provider.getCode(outcome.contractAddress), outcome.contractAddress).to.not.equal("0x");
    } finally {
      await service?.close();
    }
  });
});
