import { createRequire } from "node:module";

import { SolidityCompilation, SourcifyChain, Verification, type ISolidityCompiler } from "@ethereum-sourcify/lib-sourcify";
import { expect } from "chai";
import { JsonRpcProvider, Wallet, getAddress } from "ethers";

import { ANVIL_ACCOUNT, startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";

// A launched token's verification input (docs/tokens.md#verifying-a-token), checked offline by Sourcify's own verifier
// (lib-sourcify) against anvil: GET /tokens/{address}/verification gives a standard JSON input that, compiled with the
// solc the project builds with, matches the deployed runtime code and the creation code (constructor arguments
// included) perfectly, metadata hash and all: for the historic templates, option variants of each kind (shipped, and
// compiled on first use: the input they were compiled from), and a CREATE2 launch. Another API key, or an address the service did not launch, is 404.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const KEY = { sender: ANVIL_ACCOUNT.address, privateKey: ANVIL_ACCOUNT.privateKey };
const require = createRequire(import.meta.url);
const solc = require("solc") as { version(): string; compile(input: string): string };

/** The solc of the project (npm's solc, offline); it refuses another version, as a verifier would download that one. */
class LocalSolc implements ISolidityCompiler {
  async compile(version: string, input: Parameters<ISolidityCompiler["compile"]>[1]): ReturnType<ISolidityCompiler["compile"]> {
    const local = solc.version().replace(/\.Emscripten.*$/, "");
    if (version.replace(/^v/, "") !== local) throw new Error(`asked for solc ${version}; ${local} is here`);
    return JSON.parse(solc.compile(JSON.stringify(input))) as Awaited<ReturnType<ISolidityCompiler["compile"]>>;
  }
}

describe("token verification on anvil: Sourcify's verifier gives a perfect match from the service's input", function () {
  this.timeout(300_000);
  let node: AnvilNode;
  let api: RunningServer;
  let chain: SourcifyChain;

  before(async function () {
    node = await startAnvil();
    api = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url } });
    chain = new SourcifyChain({
      name: "anvil",
      chainId: 11155111,
      supported: true,
      rpcs: [{ rpc: node.url, traceSupport: "trace_transaction" }],
    });
  });

  after(async function () {
    await api?.stop();
    await node?.stop();
  });

  const launches: Array<[string, Record<string, unknown>]> = [
    ["historic ERC20 (no options)", { type: "ERC20", token: { name: "Historic", symbol: "HIS", initialSupply: "1000" } }],
    ["historic ERC721 (no options)", { type: "ERC721", token: { name: "Art", symbol: "ART", uri: "ipfs://art/" } }],
    [
      "ERC20 variant (capped, votes, permit, roles)",
      {
        type: "ERC20",
        token: {
          name: "Voted",
          symbol: "VOT",
          initialSupply: "5",
          totalSupply: "10",
          options: { capped: true, votes: true, permit: true, access: "roles" },
        },
      },
    ],
    [
      "ERC721 variant (enumerable, royalty, ownable)",
      {
        type: "ERC721",
        token: {
          name: "Royal",
          symbol: "ROY",
          uri: "ipfs://royal/",
          options: { enumerable: true, royalty: { receiver: ANVIL_ACCOUNT.address, basisPoints: 500 }, access: "ownable" },
        },
      },
    ],
    ["ERC1155 collection", { type: "ERC1155", token: { name: "Items", uri: "https://example.com/{id}.json", options: { supply: true } } }],
    [
      "ERC20 compiled on first use (flashmint, callback, votes timestamp, ownable)",
      {
        type: "ERC20",
        token: {
          name: "Flash",
          symbol: "FLS",
          initialSupply: "7",
          options: { flashmint: true, callback: true, votes: "timestamp", access: "ownable" },
        },
      },
    ],
    [
      "ERC721 compiled on first use (votes, uriStorage, roles)",
      { type: "ERC721", token: { name: "Voting", symbol: "VTG", uri: "ipfs://vote/", options: { votes: true, uriStorage: true } } },
    ],
    [
      "ERC1155 compiled on first use (updatableUri, royalty)",
      {
        type: "ERC1155",
        token: {
          name: "Settable",
          uri: "ipfs://set/{id}",
          options: { updatableUri: true, royalty: { receiver: ANVIL_ACCOUNT.address, basisPoints: 100 } },
        },
      },
    ],
    [
      "ERC20 launched with a salt (CREATE2)",
      { type: "ERC20", salt: `0x${"42".repeat(32)}`, token: { name: "Salted", symbol: "SLT", options: { burnable: true } } },
    ],
  ];

  for (const [label, body] of launches) {
    it(`${label}: a perfect runtime and creation match`, async function () {
      const launched = await api.call("POST", "/api/v1/tokens?wait=mined", { ...SEPOLIA, ...body, ...KEY });
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      const address = launched.body.contractAddress as string;
      const answer = await api.call("GET", `/api/v1/tokens/${address.toLowerCase()}/verification?chain=ethereum&network=sepolia`);
      expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).to.equal(200);
      const verification = answer.body;
      expect(verification).to.deep.include({
        address: getAddress(address),
        compilerVersion: `v${solc.version().replace(/\.Emscripten.*$/, "")}`,
      });
      expect(verification.launch).to.deep.include({ status: "mined", transactionHash: launched.body.transactionHash });

      // The constructor arguments are what the deployment carried after the bytecode.
      const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
      const sent = await provider.getTransaction(launched.body.transactionHash);
      expect(sent!.data.toLowerCase().endsWith(verification.constructorArguments.slice(2))).to.equal(true);

      const [path, name] = (verification.fullyQualifiedName as string).split(":") as [string, string];
      expect(name).to.equal(verification.contractName);
      const compilation = new SolidityCompilation(new LocalSolc(), verification.compilerVersion.slice(1), verification.standardJsonInput, {
        path,
        name,
      });
      const check = new Verification(compilation, chain, address, launched.body.transactionHash);
      await check.verify();
      expect(check.status).to.deep.equal({ runtimeMatch: "perfect", creationMatch: "perfect" });
    });
  }

  /** Sourcify's verifier on one contract of a verification answer (the top, or its implementation). */
  async function expectPerfect(
    verification: Record<string, any>,
    address: string,
    transactionHash: string,
    creationMatch: "perfect" | null = "perfect",
  ) {
    const [path, name] = (verification.fullyQualifiedName as string).split(":") as [string, string];
    expect(name).to.equal(verification.contractName);
    const compilation = new SolidityCompilation(new LocalSolc(), verification.compilerVersion.slice(1), verification.standardJsonInput, {
      path,
      name,
    });
    const check = new Verification(compilation, chain, address, transactionHash);
    await check.verify();
    expect(check.status, `${name} at ${address}`).to.deep.equal({ runtimeMatch: "perfect", creationMatch });
  }

  // Upgradeable launches (docs/decisions/0065): the launcher creates the implementation and the proxy inside the
  // launch's transaction, so their creation codes are found by the transaction's trace (trace_transaction on anvil).
  // lib-sourcify looks there only for a transaction that is not itself a contract creation: a salted launch (a call of
  // the CREATE2 factory). A launch without salt is a contract creation, whose receipt names the launcher: lib-sourcify
  // stops there ("doesn't match the address … created by this transaction"), so it gives a perfect runtime match and no
  // creation match, as for any contract created by a contract created in the same transaction.
  const upgradeableLaunches: Array<[string, Record<string, unknown>, string, "perfect" | null]> = [
    [
      "ERC20 uups (mintable, permit, roles), with a salt",
      {
        type: "ERC20",
        salt: `0x${"55".repeat(32)}`,
        token: { name: "Up", symbol: "UP", initialSupply: "5", options: { mintable: true, permit: true, upgradeable: "uups" } },
      },
      "ERC1967Proxy",
      "perfect",
    ],
    [
      "ERC1155 uups (supply, ownable), without a salt",
      {
        type: "ERC1155",
        token: { name: "Plain", uri: "ipfs://plain/{id}", options: { supply: true, access: "ownable", upgradeable: "uups" } },
      },
      "ERC1967Proxy",
      null,
    ],
    [
      "ERC721 transparent (enumerable, ownable), with a salt",
      {
        type: "ERC721",
        salt: `0x${"65".repeat(32)}`,
        token: {
          name: "Clear",
          symbol: "CLR",
          uri: "ipfs://clear/",
          options: { enumerable: true, access: "ownable", upgradeable: "transparent" },
        },
      },
      "TransparentUpgradeableProxy",
      "perfect",
    ],
  ];

  for (const [label, body, proxyName, creationMatch] of upgradeableLaunches) {
    it(`${label}: a perfect runtime${creationMatch ? " and creation" : ""} match for the proxy and for the implementation`, async function () {
      const launched = await api.call("POST", "/api/v1/tokens?wait=mined", { ...SEPOLIA, ...body, ...KEY });
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      const address = launched.body.contractAddress as string;
      const answer = await api.call("GET", `/api/v1/tokens/${address}/verification?chain=ethereum&network=sepolia`);
      expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).to.equal(200);
      const verification = answer.body;
      expect(verification).to.deep.include({ address: getAddress(address), contractName: proxyName });
      const implementation = verification.implementation;
      expect(implementation.constructorArguments).to.equal("0x");
      expect(Object.keys(implementation).sort()).to.deep.equal(
        Object.keys(verification)
          .filter((key) => !["chain", "network", "launch", "implementation"].includes(key))
          .sort(),
      );
      // The token read names the same implementation, from the proxy's ERC-1967 slot.
      const read = await api.call("GET", `/api/v1/tokens/${address}?chain=ethereum&network=sepolia`);
      expect(read.body.upgradeable.implementation).to.equal(implementation.address);
      await expectPerfect(implementation, implementation.address, launched.body.transactionHash, creationMatch);
      await expectPerfect(verification, address, launched.body.transactionHash, creationMatch);
    });
  }

  it("answers 404 for an address no launch of this API key deployed, and 400 for one that is no address", async function () {
    const stranger = await api.call("GET", `/api/v1/tokens/${Wallet.createRandom().address}/verification?chain=ethereum&network=sepolia`);
    expect(stranger.status).to.equal(404);
    expect(stranger.body.error).to.deep.include({ code: "LAUNCH_NOT_FOUND", field: "address" });
    const bad = await api.call("GET", "/api/v1/tokens/0x1234/verification?chain=ethereum&network=sepolia");
    expect(bad.status).to.equal(400);
    expect(bad.body.error.field).to.equal("address");
  });
});
