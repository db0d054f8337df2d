import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import v8 from "node:v8";

import { expect } from "chai";
import hre from "hardhat";

import { createTokenService } from "../../src/api.js";
import { openStore } from "../../src/store/open-store.js";
import { expectOperationMined, fundedWallet } from "../helpers/service.js";

const SRC = path.resolve(import.meta.dirname, "../../src");

/** What the plugin may not do to the process it runs in: the process is a Hardhat user's, not ours. */
const FORBIDDEN: Array<[RegExp, string]> = [
  [/process\.umask\(/, "sets the process umask (create private files with explicit modes instead)"],
  [/setFlagsFromString/, "switches V8 flags at run time"],
  [/expose-gc|\bgc\(\s*\{|runInNewContext\(\s*["']gc["']/, "forces garbage collections"],
  [
    /(keccak256|sha256|sha512|ripemd160|computeHmac|pbkdf2|scrypt|scryptSync|randomBytes)\.(register|lock)\(/i,
    "replaces or locks ethers' crypto",
  ],
  [/SigningKey\.(computePublicKey|recoverPublicKey|addPoints)\s*=/, "replaces ethers' curve code"],
];

async function sourceFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && /\.ts$/.test(entry.name)).map((entry) => path.join(entry.parentPath, entry.name));
}

describe("the host's process is left as the plugin found it", function () {
  it("no source file sets the umask, V8 flags or ethers' global implementations", async function () {
    const found: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      const lines = (await readFile(file, "utf8")).split("\n");
      for (const [index, line] of lines.entries()) {
        for (const [pattern, what] of FORBIDDEN) {
          if (pattern.test(line)) found.push(`${path.relative(SRC, file)}:${index + 1} ${what}: ${line.trim()}`);
        }
      }
    }
    expect(found).to.deep.equal([]);
  });

  it("creating wallets, funding, launching and minting with the embedded store changes no V8 flag and no umask", async function () {
    const calls: string[] = [];
    const { setFlagsFromString } = v8;
    const { umask } = process;
    const gcBefore = typeof (globalThis as { gc?: unknown }).gc;
    v8.setFlagsFromString = (flags: string) => {
      calls.push(`v8.setFlagsFromString(${flags})`);
      setFlagsFromString(flags);
    };
    process.umask = ((...args: [number?]) => {
      calls.push(`process.umask(${args.map((mask) => mask?.toString(8)).join()})`);
      return umask.apply(process, args as [number]);
    }) as typeof process.umask;
    const dataDir = await mkdtemp(path.join(tmpdir(), "hts-host-"));
    try {
      const store = await openStore({ dataDir });
      const service = await createTokenService({ hre, env: {}, operationStore: store });
      try {
        const pair = { chain: "ethereum", network: "sepolia" };
        const owner = await fundedWallet(service, pair);
        service.createWallet({ chain: "bitcoin", network: "mainnet" });
        const launched = await service.launch({
          ...pair,
          type: "erc20",
          token: { name: "Host", symbol: "HST", initialSupply: "1" },
          sender: owner.address,
          privateKey: owner.privateKey,
        });
        await expectOperationMined(service, launched);
        const minted = await service.mint({
          ...pair,
          type: "erc20",
          contractAddress: launched.contractAddress,
          to: owner.address,
          amount: "2",
          sender: owner.address,
          privateKey: owner.privateKey,
        });
        await expectOperationMined(service, minted);
      } finally {
        await service.close();
        await store.close();
      }
    } finally {
      v8.setFlagsFromString = setFlagsFromString;
      process.umask = umask;
      await rm(dataDir, { recursive: true, force: true });
    }
    expect(calls).to.deep.equal([]);
    expect(typeof (globalThis as { gc?: unknown }).gc).to.equal(gcBefore);
  });
});
