import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { expect } from "chai";
import { toQuantity, Wallet as EthersWallet } from "ethers";

import { cleanEnvironment, type CliResult } from "../helpers/cli.js";
import { codeExamples, textShape, withRecordedOutputs, type CodeExample } from "../helpers/doc-walkthrough.js";
import { rpc } from "../helpers/json-rpc-servers.js";
import { startServe } from "../helpers/serve-process.js";
import { closedPort } from "../helpers/service.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The page that tells a Hardhat user how to install and configure the plugin: what this test follows. */
const PLUGIN_PAGE = "docs/plugin.md";
const pluginPage = () => readFileSync(path.join(ROOT, PLUGIN_PAGE), "utf8");
const fencedBlocks = (language: string) =>
  [...pluginPage().matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((match) => match[1]!);
/**
 * The page's install commands, as written (comments dropped): `npm pack` in the clone, then the others in the user's
 * project, each through a shell, as a reader types them.
 */
const documentedInstallCommands = () =>
  (fencedBlocks("sh")[0] ?? "")
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "");
/** The page's recipe for a system Node older than 22.16: the one `sh` block that runs npm under Node 24. */
const documentedOldNodeRecipe = () =>
  fencedBlocks("sh")
    .find((block) => block.startsWith("npm exec --yes --package=node@"))
    ?.trim();
/** The page's plugin config, written verbatim as the new project's hardhat.config.ts. */
const documentedConfig = () => fencedBlocks("ts").find((block) => block.startsWith("// hardhat.config.ts\n"));

/** Every TypeScript example of the README and docs/ that imports this package: each runs here, as a user runs it. */
async function packageExamples(): Promise<CodeExample[]> {
  const pages = (await readdir(path.join(ROOT, "docs"), { recursive: true }))
    .map((name) => path.join("docs", String(name)))
    .filter((name) => name.endsWith(".md"));
  return ["README.md", ...pages.sort()]
    .flatMap((page) => codeExamples(page))
    .filter((example) => /from "hardhat-token-service\//.test(example.code));
}

const RECORD = process.env.README_TEST_RECORD === "1";

/** What an example printed, checked against the `text` block under it (or, recording, written there). */
async function checkExampleOutput(example: CodeExample, printed: string): Promise<void> {
  if (!example.shown) return;
  if (RECORD) {
    const page = path.join(ROOT, example.file);
    await writeFile(page, withRecordedOutputs(await readFile(page, "utf8"), [{ shown: example.shown, text: printed.trim() }]));
    return;
  }
  expect(
    printed.trim(),
    `${example.path} (${example.file} line ${example.line}) printed:\n${printed}\n\nshown:\n${example.shown.text}`,
  ).to.match(textShape(example.shown.text));
}

/** The only configuration variable the documented config uses; each test says whether it is set. */
const SEPOLIA_VARIABLE = "SEPOLIA_RPC_URL";

/** A synchronous module hook (Node 24's `module.registerHooks`) that lists every module a process resolves, at exit. */
const MODULE_LIST_HOOK = `import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
const resolved = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    resolved.add(result.url);
    return result;
  },
});
process.on("exit", () => writeFileSync(process.env.HTS_RESOLVED_MODULES_FILE, [...resolved].join("\\n")));
`;
/** What only the HTTP service needs: a task must not load any of them. */
const SERVER_PACKAGES = ["express", "pino", "prom-client", "kysely", "pg"];
const loadedPackages = (urls: string[]) =>
  new Set(urls.flatMap((url) => [...url.matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((match) => match[1]!)));

/** Runs a command with this process's Node first on PATH: npm then installs the packages of Node 24, EDR's included. */
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 240_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: childEnvironment(env), stdio: ["ignore", "pipe", "pipe"] });
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

/**
 * The PATH of the user's shell: the runner's without the directories npm and this project's `node` devDependency put
 * first (every one inside a node_modules), so `node` is the machine's own (v20 on the development machine).
 */
const systemPath = () =>
  (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((directory) => directory !== "" && !directory.split(path.sep).includes("node_modules"))
    .join(path.delimiter);

/** The packed size docs/decisions/0059-package-contents.md allows, in bytes of the .tgz (705 kB when it was set). */
const PACKED_SIZE_LIMIT = 750_000;

/** The files of the installed package, largest first by what each weighs gzipped on its own (≈ its share of the .tgz). */
async function weightiestFiles(directory: string, count: number): Promise<string[]> {
  const files = (await readdir(directory, { recursive: true })).map(String).filter((file) => statSync(path.join(directory, file)).isFile());
  const weighed = await Promise.all(
    files.map(async (file) => {
      const bytes = await readFile(path.join(directory, file));
      return { file, bytes: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length };
    }),
  );
  const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
  return weighed
    .sort((a, b) => b.gzipped - a.gzipped)
    .slice(0, count)
    .map(({ file, bytes, gzipped }) => `${file}: ${kB(gzipped)} gzipped (${kB(bytes)})`);
}

/** The test runner's environment without what would change the child's configuration (SEPOLIA_RPC_URL unless given). */
function childEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = cleanEnvironment({ PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}` });
  delete base[SEPOLIA_VARIABLE];
  delete base.NODE_OPTIONS;
  return { ...base, ...env };
}

const json = (result: CliResult) => {
  expect(result.code, result.stdout + result.stderr).to.equal(0);
  return JSON.parse(result.stdout.slice(result.stdout.indexOf("{")));
};

/** `hardhat node` of the user's project on a free port, answering once its chain id is the one asked for. */
async function startHardhatNode(hardhatBin: string, cwd: string, chainId: number): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await closedPort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [hardhatBin, "node", "--chain-id", String(chainId), "--port", String(port)], {
    cwd,
    env: childEnvironment({}),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`hardhat node exited with ${child.exitCode}: ${stderr}`);
    const answer = await rpc(url, "eth_chainId", []).catch(() => undefined);
    if (answer !== undefined) {
      expect(Number(answer)).to.equal(chainId);
      return { url, stop };
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`hardhat node did not answer on ${url} within 120 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("the package as users get it: docs/plugin.md's install commands and plugin config in a new Hardhat project", function () {
  let project: string;
  let packs: string;
  let hardhatBin: string;
  let tarballBytes: number;
  const hardhat = (args: string[], env: Record<string, string> = {}) => run(process.execPath, [hardhatBin, ...args], project, env);
  const bsc = ["--chain", "binance_smart_chain", "--chain-network", "testnet"];

  before(async function () {
    this.timeout(600_000);
    const config = documentedConfig();
    expect(config, `${PLUGIN_PAGE}: a \`\`\`ts block starting with // hardhat.config.ts`).to.be.a("string");
    const [pack, ...inProject] = documentedInstallCommands();
    expect(pack, `${PLUGIN_PAGE}: the first install command packs the clone`).to.equal("npm pack");
    const install = inProject.find((command) => command.startsWith("npm install "));
    expect(install, `${PLUGIN_PAGE}: a command installs the tarball into the project`).to.be.a("string");
    packs = await mkdtemp(path.join(tmpdir(), "hts-pack-"));
    project = await mkdtemp(path.join(tmpdir(), "hts-user-"));
    hardhatBin = path.join(project, "node_modules/.bin/hardhat");

    // As written, but packed outside the clone (parallel runs would share one tarball).
    const packed = await run("npm", ["pack", "--pack-destination", packs], ROOT);
    expect(packed.code, packed.stderr).to.equal(0);
    const [tarball] = (await readdir(packs)).filter((name) => name.endsWith(".tgz"));
    const documentedTarball = install!.split(/\s+/).find((word) => word.endsWith(".tgz"))!;
    expect(path.basename(documentedTarball), `${PLUGIN_PAGE} names the tarball npm pack writes`).to.equal(tarball);
    tarballBytes = statSync(path.join(packs, tarball!)).size;

    // A new project, its package.json as `npm init` leaves it: no "type" yet (the page's commands set it).
    await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "my-tokens", version: "1.0.0", private: true }));
    for (const command of inProject) {
      // As written, with the tarball's real path; npm's cache first (--prefer-offline), the npm registry for what it lacks.
      const adapted =
        command === install
          ? `${command.replace(documentedTarball, path.join(packs, tarball!))} --no-audit --no-fund --prefer-offline`
          : command;
      const result = await run("bash", ["-c", adapted], project);
      expect(result.code, `${command}\n${result.stderr}`).to.equal(0);
    }
    // The recipe for an older system Node, as written, under the PATH of the user's shell (the machine's own node): in
    // the same project, as a user who read on would run it after the plain install.
    const recipe = documentedOldNodeRecipe();
    expect(recipe, `${PLUGIN_PAGE}: a command installs under Node 24 for an older system Node`).to.be.a("string");
    expect(recipe!.split("\n"), `${PLUGIN_PAGE}: the recipe is one command`).to.have.length(1);
    const recipeRun = await run(
      "bash",
      ["-c", `${recipe!.replace(documentedTarball, path.join(packs, tarball!))} --no-audit --no-fund --prefer-offline`],
      project,
      { PATH: systemPath() },
    );
    expect(recipeRun.code, `${recipe}\n${recipeRun.stderr}`).to.equal(0);
    const manifest = JSON.parse(await readFile(path.join(project, "package.json"), "utf8"));
    expect(manifest.type, `${PLUGIN_PAGE}: its commands make the project an ES module`).to.equal("module");
    expect(await readFile(path.join(project, ".gitignore"), "utf8"), `${PLUGIN_PAGE}: its commands ignore the data directory`).to.include(
      ".token-service/",
    );
    await writeFile(path.join(project, "hardhat.config.ts"), config!);
    await writeFile(path.join(packs, "list-modules.mjs"), MODULE_LIST_HOOK);
  });

  after(async function () {
    await rm(project, { recursive: true, force: true });
    await rm(packs, { recursive: true, force: true });
  });

  it(`packs to at most ${PACKED_SIZE_LIMIT / 1000} kB (docs/decisions/0059-package-contents.md)`, async function () {
    const installed = path.join(project, "node_modules/hardhat-token-service");
    if (tarballBytes > PACKED_SIZE_LIMIT) {
      const largest = await weightiestFiles(installed, 12);
      expect.fail(`the tarball is ${(tarballBytes / 1000).toFixed(1)} kB; its largest files:\n  ${largest.join("\n  ")}`);
    }
  });

  it("ships compiled code and contracts, no source maps pointing at sources it does not ship", async function () {
    const installed = path.join(project, "node_modules/hardhat-token-service");
    expect(existsSync(path.join(installed, "dist/src/index.js"))).to.equal(true);
    expect(existsSync(path.join(installed, "dist/src/artifacts"))).to.equal(true);
    expect(existsSync(path.join(installed, "contracts/ServiceERC20.sol"))).to.equal(true);
    // The token variants: compiled bundles, and the sources a block explorer verifies them with.
    for (const kind of ["erc20", "erc721", "erc1155"]) {
      expect(existsSync(path.join(installed, `dist/src/artifacts/variants/${kind}.json.br`)), kind).to.equal(true);
    }
    // What GET /tokens/{address}/verification builds a standard JSON input from, every variant's source included: no
    // OpenZeppelin in the project needed, and no token-variants/ (0059), nor docs/ (read in the repository).
    expect(existsSync(path.join(installed, "dist/src/artifacts/verification.json.br"))).to.equal(true);
    // The variants compiled on first use: the OpenZeppelin sources beyond those are in the same bundle; the compiler's
    // thread (0062).
    expect(existsSync(path.join(installed, "dist/src/chains/evm/variants/solc-worker.js"))).to.equal(true);
    expect(existsSync(path.join(installed, "token-variants")), "token-variants/").to.equal(false);
    expect(existsSync(path.join(installed, "docs")), "docs/").to.equal(false);
    // Declarations only where an entry point's types lead (scripts/prune-declarations.ts): the store's are not.
    expect(existsSync(path.join(installed, "dist/src/store/kysely-store.js"))).to.equal(true);
    expect(existsSync(path.join(installed, "dist/src/store/kysely-store.d.ts"))).to.equal(false);
    const files = await readdir(path.join(installed, "dist"), { recursive: true });
    expect(files.filter((file) => String(file).endsWith(".map"))).to.deep.equal([]);
    expect(existsSync(path.join(installed, "src")), "no TypeScript sources").to.equal(false);
  });

  it("with an older system Node, docs/plugin.md's recipe makes npx hardhat run on the project's Node 24", async function () {
    const user = { PATH: systemPath() };
    const node = await run("npx", ["node", "--version"], project, user);
    expect(node.code, node.stderr).to.equal(0);
    expect(node.stdout.trim()).to.match(/^v24\./);
    const created = json(
      await run("npx", ["hardhat", "wallet:create", "--chain", "bitcoin", "--chain-network", "testnet", "--json"], project, user),
    );
    expect(created.address).to.match(/^tb1q/);
  });

  it(`with ${SEPOLIA_VARIABLE} unset, every task works on the other pairs (BNB testnet, bitcoin)`, async function () {
    const btc = json(await hardhat(["wallet:create", "--chain", "bitcoin", "--chain-network", "testnet", "--json"]));
    expect(btc.address).to.match(/^tb1q/);

    const wallet = json(await hardhat(["wallet:create", ...bsc, "--json"]));
    const funded = json(await hardhat(["faucet", ...bsc, "--address", wallet.address, "--amount", "2", "--json"]));
    expect(funded).to.deep.include({ simulated: true, balance: { balance: "2000000000000000000", uiBalance: "2" } });
    const signer = { DEPLOYER_KEY: wallet.privateKey };
    const erc20 = json(
      await hardhat(
        [
          "token:launch",
          ...bsc,
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
        signer,
      ),
    );
    expect(erc20).to.include({ status: "mined", simulated: true });
    const erc721 = json(
      await hardhat(
        ["token:launch", ...bsc, "--type", "erc721", "--name", "Art", "--symbol", "ART", "--private-key-env", "DEPLOYER_KEY", "--json"],
        signer,
      ),
    );
    const minted = json(
      await hardhat(
        ["token:mint", ...bsc, "--type", "erc721", "--contract", erc721.contractAddress, "--private-key-env", "DEPLOYER_KEY", "--json"],
        signer,
      ),
    );
    // A variant, read from the installed package's compressed bundle, at its CREATE2 address.
    const collection = json(
      await hardhat(
        [
          "token:launch",
          ...bsc,
          "--type",
          "erc1155",
          "--name",
          "Items",
          "--options",
          "supply,burnable",
          "--salt",
          `0x${"42".repeat(32)}`,
          "--private-key-env",
          "DEPLOYER_KEY",
          "--json",
        ],
        signer,
      ),
    );
    expect(collection).to.include({ status: "mined", type: "ERC1155", simulated: true });
    expect(minted).to.include({ status: "mined", tokenId: "1" });
    const balance = json(
      await hardhat([
        "balance",
        ...bsc,
        "--address",
        wallet.address,
        "--erc20",
        erc20.contractAddress,
        "--erc721",
        erc721.contractAddress,
        "--json",
      ]),
    );
    expect(balance.balances.GLD).to.include({ uiBalance: "1000" });
    expect(balance.erc721[0]).to.deep.include({ balance: "1", tokenIds: ["1"], symbol: "ART" });

    const key = await hardhat(["apikey:create", "--label", "package-test", "--json"]);
    expect(json(key).key).to.be.a("string").with.length.greaterThan(20);
  });

  it(`with ${SEPOLIA_VARIABLE} unset, a call on its Hardhat network (--network sepolia) fails naming the variable`, async function () {
    const wallet = EthersWallet.createRandom();
    const result = await hardhat(["balance", "--network", "sepolia", "--address", wallet.address]);
    expect(result.code).not.to.equal(0);
    expect(result.stdout + result.stderr).to.include(SEPOLIA_VARIABLE);
  });

  it(`with ${SEPOLIA_VARIABLE} set to a Hardhat node (chain id 11155111), a launch with --network sepolia goes live`, async function () {
    const node = await startHardhatNode(hardhatBin, project, 11155111);
    try {
      const deployer = EthersWallet.createRandom();
      // The faucet refuses live networks: the node itself funds the deployer.
      await rpc(node.url, "hardhat_setBalance", [deployer.address, toQuantity(10n ** 19n)]);
      const launched = await hardhat(
        [
          "token:launch",
          "--network",
          "sepolia",
          "--type",
          "erc20",
          "--name",
          "Live",
          "--symbol",
          "LIV",
          "--private-key-env",
          "DEPLOYER_KEY",
        ],
        { DEPLOYER_KEY: deployer.privateKey, [SEPOLIA_VARIABLE]: node.url },
      );
      expect(launched.code, launched.stdout + launched.stderr).to.equal(0);
      expect(launched.stdout).to.include("(live network: configuration variable SEPOLIA_RPC_URL via Hardhat network sepolia)");
      const withJson = json(
        await hardhat(
          [
            "token:launch",
            "--network",
            "sepolia",
            "--type",
            "erc721",
            "--name",
            "Art",
            "--symbol",
            "ART",
            "--private-key-env",
            "DEPLOYER_KEY",
            "--json",
          ],
          { DEPLOYER_KEY: deployer.privateKey, [SEPOLIA_VARIABLE]: node.url },
        ),
      );
      expect(withJson).to.include({ status: "mined", simulated: false });
      // The node agrees: the contract is there.
      expect(((await rpc(node.url, "eth_getCode", [withJson.contractAddress, "latest"])) as string).length).to.be.greaterThan(2);
      expect(launched.stdout + launched.stderr).not.to.include(deployer.privateKey.slice(2));
    } finally {
      await node.stop();
    }
  });

  it("loads the HTTP service's dependencies only for serve: no task loads express, pino, prom-client or pg; only those that record load the store", async function () {
    const modulesOf = async (args: string[], env: Record<string, string> = {}) => {
      const list = path.join(packs, `modules-${args[0]!.replace(":", "-")}.txt`);
      const result = await hardhat(args, {
        ...env,
        NODE_OPTIONS: `--import=${pathToFileURL(path.join(packs, "list-modules.mjs")).href}`,
        HTS_RESOLVED_MODULES_FILE: list,
      });
      expect(result.code, result.stdout + result.stderr).to.equal(0);
      return loadedPackages((await readFile(list, "utf8")).split("\n"));
    };
    const wallet = json(await hardhat(["wallet:create", ...bsc, "--json"]));
    // Launches, mints and grants record themselves in the store (Kysely over node:sqlite), as the service does: that
    // is the one server-side package a task may load, and only a task that makes an operation.
    const runs: [string[], Record<string, string> | undefined, string[]][] = [
      [["wallet:create", ...bsc, "--json"], undefined, []],
      [["faucet", ...bsc, "--address", wallet.address, "--json"], undefined, ["kysely"]],
      [
        ["token:launch", ...bsc, "--type", "erc721", "--name", "Art", "--symbol", "ART", "--private-key-env", "KEY"],
        { KEY: wallet.privateKey },
        ["kysely"],
      ],
      [["balance", ...bsc, "--address", wallet.address, "--json"], undefined, []],
    ];
    for (const [args, env, store] of runs) {
      const loaded = await modulesOf(args, env);
      expect(loaded.has("hardhat-token-service"), `${args[0]} ran the plugin`).to.equal(true);
      expect(
        SERVER_PACKAGES.filter((name) => loaded.has(name)),
        `${args[0]} loaded`,
      ).to.deep.equal(store);
    }
    // The hook sees them where they are used: apikey:create opens the service's store.
    expect((await modulesOf(["apikey:create", "--label", "hook-check"])).has("kysely")).to.equal(true);
  });

  it("exports every type a programmatic result has: a typed script compiles with tsc --noEmit", async function () {
    await writeFile(
      path.join(project, "typed-results.ts"),
      `import type {
  AmountPair, BalanceEntry, BalancesResult, EvmChain, EvmChains, FaucetOutcome, FaucetResult, LaunchOutcome, LaunchResult,
  MintOutcome, MintResult, NetworkSummary, OperationRecord, Operations, PreparedOutcome, TokenBalanceResult, TokenService,
  TransactionStatus, Wallet,
} from "hardhat-token-service/api";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Result<K extends keyof TokenService> = TokenService[K] extends (...args: never[]) => infer R ? Awaited<R> : never;
type Operation<K extends keyof TokenService["operations"]> = TokenService["operations"][K] extends (...args: never[]) => infer R ? Awaited<R> : never;

export const results: [
  Same<Result<"createWallet">, Wallet>,
  Same<Result<"networks">, NetworkSummary[]>,
  Same<Result<"getBalances">, BalancesResult>,
  Same<BalancesResult["balances"][string], BalanceEntry>,
  Same<Pick<BalanceEntry, keyof AmountPair>, AmountPair>,
  Same<Result<"getTokenBalance">, TokenBalanceResult>,
  Same<Result<"launch">, LaunchOutcome>,
  Same<Result<"mint">, MintOutcome>,
  Same<Result<"prepareLaunch">, PreparedOutcome>,
  Same<Result<"prepareMint">, PreparedOutcome>,
  Same<Result<"faucet">, FaucetOutcome>,
  Same<Result<"getTransaction">, TransactionStatus>,
  Same<Result<"waitForTransaction">, TransactionStatus>,
  Same<Operation<"launch">, LaunchOutcome>,
  Same<Operation<"mint">, MintOutcome>,
  Same<Operation<"faucet">, FaucetOutcome>,
  Same<Operation<"wait">, OperationRecord>,
  Same<Operation<"prepareLaunch">, PreparedOutcome>,
  Same<Operation<"prepareMint">, PreparedOutcome>,
  Same<Result<"evmChain">, EvmChain>,
  Same<TokenService["operations"], Operations>,
  Same<TokenService["evm"], EvmChains>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];

// The typed client's types come from its generated OpenAPI declarations (any, were they missing from the package).
import type { Launch, paths } from "hardhat-token-service/client";
type IsAny<T> = 0 extends 1 & T ? true : false;
export const clientTypes: [IsAny<paths>, IsAny<Launch>, Same<Launch["status"], "signed" | "pending" | "mined" | "failed" | "dropped" | "cancelled">] = [
  false,
  false,
  true,
];
`,
    );
    await writeFile(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck: true, types: [] },
        files: ["typed-results.ts"],
      }),
    );
    const checked = await run(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], project);
    expect(checked.code, checked.stdout + checked.stderr).to.equal(0);
  });

  it("runs every programmatic example of the README and docs/, as written, with hardhat run --no-compile", async function () {
    const examples = (await packageExamples()).filter((example) => example.code.includes('from "hardhat-token-service/api"'));
    expect(examples.map((example) => example.file)).to.include.members(["README.md", PLUGIN_PAGE]);
    for (const example of examples) {
      await mkdir(path.join(project, path.dirname(example.path)), { recursive: true });
      await writeFile(path.join(project, example.path), example.code);
      const result = await hardhat(["run", "--no-compile", example.path]);
      expect(result.code, `${example.path} (${example.file} line ${example.line})\n${result.stdout}${result.stderr}`).to.equal(0);
      // Every example runs on a simulated chain, and says so.
      expect(result.stdout, `${example.path} (${example.file} line ${example.line})`).to.match(/simulated:? true/);
      await checkExampleOutput(example, result.stdout);
    }
  });

  it("serves the HTTP API with npx hardhat serve", async function () {
    const serve = await startServe({ cwd: project, hardhatBin, apiKey: "package-test-key-0123456789" });
    try {
      const created = await serve.call("POST", "/api/v1/wallets", { chain: "bitcoin", network: "testnet" });
      expect(created.status).to.equal(200);
      expect(created.body.address).to.match(/^tb1q/);
      expect((await serve.call("GET", "/openapi.json")).status).to.equal(200);
      // The typed client's examples (docs/http-api.md): an ERC20 signed here, with a key the service never sees. The one
      // change: the service listens on a free port instead of 8080.
      const examples = (await packageExamples()).filter((example) => example.code.includes('from "hardhat-token-service/client"'));
      expect(examples, "the typed client's example in docs/").to.have.length.greaterThan(0);
      for (const example of examples) {
        expect(example.code, `${example.path}: the service's address`).to.include('"http://127.0.0.1:8080"');
        await mkdir(path.join(project, path.dirname(example.path)), { recursive: true });
        await writeFile(
          path.join(project, example.path),
          example.code.replaceAll('"http://127.0.0.1:8080"', JSON.stringify(serve.baseUrl)),
        );
        const result = await hardhat(["run", "--no-compile", example.path], { API_KEY: "package-test-key-0123456789" });
        expect(result.code, `${example.path} (${example.file} line ${example.line})\n${result.stdout}${result.stderr}`).to.equal(0);
        expect(result.stdout).to.include("mined in block").and.to.include("signed → pending → mined");
        await checkExampleOutput(example, result.stdout);
      }
    } finally {
      expect(await serve.stop()).to.equal(0);
    }
  });
});
