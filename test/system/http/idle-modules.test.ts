import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "chai";

// What `serve` keeps idle (issue 28 item 6, docs/operations.md#the-memory-budget) depends on what it loads: the optional
// parts (AWS KMS, Bitcoin's libraries, the WebAssembly curve, PostgreSQL's driver, solc, Swagger UI) load on first use.
// A synchronous module hook (Node 24's `module.registerHooks`), preloaded with --import, records every module a
// thread of the server loads, and writes the list when the thread exits.

const ROOT = path.resolve(import.meta.dirname, "../../..");
const HARDHAT = path.join(ROOT, "node_modules/.bin/hardhat");

const LOADED_MODULES_HOOK = `import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
import { threadId } from "node:worker_threads";
const loaded = new Set();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});
process.on("exit", () => writeFileSync(\`\${process.env.HTS_LOADED_MODULES_FILE}-\${threadId}\`, [...loaded].join("\\n")));
`;

/** Optional packages: none of them is needed to start, create an EVM wallet and grant from a simulated chain's faucet. */
const OPTIONAL_PACKAGES = [
  "@aws-sdk/client-kms",
  "@openzeppelin/upgrades-core",
  "bitcoinjs-lib",
  "ecpair",
  "tiny-secp256k1",
  "pg",
  "solc",
  "swagger-ui-dist",
];

/**
 * The packages whose code was loaded. A package.json alone does not count: this repository's hardhat.config.ts reads
 * solc's for the compiler's version, which runs no compiler.
 */
const packagesOf = (urls: string[]) =>
  new Set(
    urls
      .filter((url) => !url.endsWith("/package.json"))
      .flatMap((url) => [...url.matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((match) => match[1]!)),
  );

describe("serve loads its optional parts on first use (real CLI, loaded modules recorded)", function () {
  let dir: string;

  before(async function () {
    dir = await mkdtemp(path.join(tmpdir(), "hts-idle-modules-"));
    await writeFile(path.join(dir, "hook.mjs"), LOADED_MODULES_HOOK);
  });

  after(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts serve with the hook, runs `use` against it, stops it with SIGTERM and answers the packages its threads loaded. */
  async function packagesLoadedBy(name: string, use: (baseUrl: string) => Promise<void>): Promise<Set<string>> {
    const list = path.join(dir, `${name}-modules`);
    const dataDir = path.join(dir, `${name}-data`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${pathToFileURL(path.join(dir, "hook.mjs")).href}`,
      HTS_LOADED_MODULES_FILE: list,
    };
    // The embedded store: a PostgreSQL URL would load pg, as it must.
    delete env.DATABASE_URL;
    const child = spawn(HARDHAT, ["serve", "--port", "0", "--no-auth", "--data-dir", dataDir, "--block-time", "0"], { cwd: ROOT, env });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      const baseUrl = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), 60_000);
        void exited.then(() => reject(new Error(`exited before its banner:\n${output}`)));
        child.stdout.on("data", () => {
          const match = /listening on (http:\/\/\S+)/.exec(output);
          if (match && output.includes("auth")) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      await use(baseUrl);
      child.kill("SIGTERM");
      expect(await exited, output).to.equal(0);
    } finally {
      child.kill("SIGKILL");
    }
    const files = (await readdir(dir)).filter((file) => file.startsWith(`${name}-modules-`));
    const urls = (await Promise.all(files.map((file) => readFile(path.join(dir, file), "utf8")))).flatMap((text) => text.split("\n"));
    return packagesOf(urls);
  }

  async function post(baseUrl: string, route: string, body: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${baseUrl}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(json)).to.be.oneOf([200, 201]);
    return json;
  }

  it("after start-up, an EVM wallet and a faucet grant on a simulated chain: none of the optional packages", async function () {
    const loaded = await packagesLoadedBy("evm", async (baseUrl) => {
      const wallet = await post(baseUrl, "/api/v1/wallets", { chain: "ethereum", network: "sepolia" });
      await post(baseUrl, "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address: wallet.address });
    });
    // The hook saw the service and its chain: what they always need is there.
    expect(["express", "kysely", "@nomicfoundation/edr"].filter((name) => !loaded.has(name))).to.deep.equal([]);
    expect(OPTIONAL_PACKAGES.filter((name) => loaded.has(name))).to.deep.equal([]);
  });

  it("loads Bitcoin's libraries and the WebAssembly curve once a Bitcoin wallet is made, and nothing else optional", async function () {
    const loaded = await packagesLoadedBy("bitcoin", async (baseUrl) => {
      const wallet = await post(baseUrl, "/api/v1/wallets", { chain: "bitcoin", network: "testnet", addressType: "p2tr" });
      expect(wallet.address).to.match(/^tb1p/);
    });
    expect(OPTIONAL_PACKAGES.filter((name) => loaded.has(name))).to.deep.equal(["bitcoinjs-lib", "ecpair", "tiny-secp256k1"]);
  });
});
