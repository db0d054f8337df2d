import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { cleanEnvironment, type CliResult } from "./helpers/cli.js";
import { startServe } from "./helpers/serve-process.js";

const ROOT = path.resolve(import.meta.dirname, "..");

/** Runs a command with this process's Node first on PATH: npm then installs the packages of Node 24, EDR's included. */
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 240_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: cleanEnvironment({ ...env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}` }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const json = (result: CliResult) => JSON.parse(result.stdout.slice(result.stdout.indexOf("{")));

describe("the package as users get it: npm pack, installed into a new Hardhat project", function () {
  let project: string;
  let packs: string;
  const hardhat = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, [path.join(project, "node_modules/.bin/hardhat"), ...args], project, env);

  before(async function () {
    this.timeout(600_000);
    packs = await mkdtemp(path.join(tmpdir(), "hts-pack-"));
    project = await mkdtemp(path.join(tmpdir(), "hts-user-"));
    const packed = await run("npm", ["pack", "--pack-destination", packs], ROOT);
    expect(packed.code, packed.stderr).to.equal(0);
    const [tarball] = (await readdir(packs)).filter((name) => name.endsWith(".tgz"));
    const hardhatVersion = JSON.parse(await readFile(path.join(ROOT, "node_modules/hardhat/package.json"), "utf8")).version as string;
    await writeFile(
      path.join(project, "package.json"),
      JSON.stringify({ name: "my-tokens", version: "1.0.0", type: "module", private: true }),
    );
    // The same Hardhat as this repository's, from npm's cache where it has it (--prefer-offline); only the npm
    // registry is asked for what the cache lacks (a machine whose cache holds tarballs but no package metadata).
    const installed = await run(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--save-dev", `hardhat@${hardhatVersion}`, path.join(packs, tarball!)],
      project,
    );
    expect(installed.code, installed.stderr).to.equal(0);
    await writeFile(
      path.join(project, "hardhat.config.ts"),
      'import { defineConfig } from "hardhat/config";\nimport tokenService from "hardhat-token-service";\n\nexport default defineConfig({ plugins: [tokenService] });\n',
    );
  });

  after(async function () {
    await rm(project, { recursive: true, force: true });
    await rm(packs, { recursive: true, force: true });
  });

  it("ships compiled code and contracts, no source maps pointing at sources it does not ship", async function () {
    const installed = path.join(project, "node_modules/hardhat-token-service");
    expect(existsSync(path.join(installed, "dist/src/index.js"))).to.equal(true);
    expect(existsSync(path.join(installed, "dist/src/artifacts"))).to.equal(true);
    expect(existsSync(path.join(installed, "contracts/ServiceERC20.sol"))).to.equal(true);
    const files = await readdir(path.join(installed, "dist"), { recursive: true });
    expect(files.filter((file) => String(file).endsWith(".map"))).to.deep.equal([]);
    expect(existsSync(path.join(installed, "src")), "no TypeScript sources").to.equal(false);
  });

  it("runs the tasks: a wallet, the faucet, an ERC20 launch in whole tokens, a balance", async function () {
    const wallet = json(await hardhat(["wallet:create", "--chain", "ethereum", "--chain-network", "sepolia", "--json"]));
    const funded = await hardhat(["faucet", "--chain", "ethereum", "--chain-network", "sepolia", "--address", wallet.address]);
    expect(funded.code, funded.stderr).to.equal(0);
    const launched = await hardhat(
      [
        "token:launch",
        "--chain",
        "ethereum",
        "--chain-network",
        "sepolia",
        "--type",
        "erc20",
        "--name",
        "Gold",
        "--symbol",
        "GLD",
        "--initial-supply",
        "1000",
        "--private-key-env",
        "DEPLOYER_KEY",
        "--json",
      ],
      { DEPLOYER_KEY: wallet.privateKey },
    );
    expect(launched.code, launched.stderr).to.equal(0);
    const { contractAddress, status } = json(launched);
    expect(status).to.equal("mined");
    const balance = json(
      await hardhat([
        "balance",
        "--chain",
        "ethereum",
        "--chain-network",
        "sepolia",
        "--address",
        wallet.address,
        "--erc20",
        contractAddress,
        "--json",
      ]),
    );
    expect(balance.balances.GLD).to.include({ uiBalance: "1000" });
    expect(launched.stdout + launched.stderr).not.to.include(wallet.privateKey.slice(2));
  });

  it("runs the programmatic API from hardhat-token-service/api with hardhat run --no-compile", async function () {
    await mkdir(path.join(project, "scripts"), { recursive: true });
    await writeFile(
      path.join(project, "scripts/launch.ts"),
      `import hre from "hardhat";
import { createTokenService } from "hardhat-token-service/api";

const service = await createTokenService({ hre });
const wallet = service.createWallet({ chain: "ethereum", network: "sepolia" });
await service.faucet({ chain: "ethereum", network: "sepolia", address: wallet.address });
const launch = await service.operations.launch({
  chain: "ethereum", network: "sepolia", type: "ERC721", token: { name: "Art", symbol: "ART" },
  sender: wallet.address, privateKey: wallet.privateKey,
});
console.log(JSON.stringify(await service.operations.settle(launch, 60_000)));
await service.close();
`,
    );
    const result = await hardhat(["run", "--no-compile", "scripts/launch.ts"]);
    expect(result.code, result.stderr).to.equal(0);
    expect(json(result)).to.include({ status: "mined", type: "ERC721" });
  });

  it("serves the HTTP API with npx hardhat serve", async function () {
    const serve = await startServe({
      cwd: project,
      hardhatBin: path.join(project, "node_modules/.bin/hardhat"),
      apiKey: "package-test-key-0123456789",
    });
    try {
      const created = await serve.call("POST", "/api/v1/wallets", { chain: "bitcoin", network: "testnet" });
      expect(created.status).to.equal(200);
      expect(created.body.address).to.match(/^tb1q/);
      expect((await serve.call("GET", "/openapi.json")).status).to.equal(200);
    } finally {
      expect(await serve.stop()).to.equal(0);
    }
  });
});
