import { expect } from "chai";
import { toQuantity } from "ethers";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import { ErrorCode } from "../../src/domain/errors.js";
import type { Wallet } from "../../src/core/wallets.js";
import { expectServiceError } from "../helpers/errors.js";
import { rpc, startCountingProxy, startSilentServer, type CountingProxy } from "../helpers/json-rpc-servers.js";
import { expectMined, expectOperationMined, type Pair } from "../helpers/service.js";

const SEPOLIA: Pair = { chain: "ethereum", network: "sepolia" };

/** A real JSON-RPC node on a socket: EDR behind Hardhat's HTTP server. */
async function startNode(chainId?: number): Promise<{ server: JsonRpcServer; url: string }> {
  const server = await hre.network.createServer(chainId === undefined ? {} : { override: { chainId } }, "127.0.0.1", 0);
  const { address, port } = await server.listen();
  return { server, url: `http://${address}:${port}` };
}

describe("live network (a real JSON-RPC node over HTTP)", function () {
  let node: { server: JsonRpcServer; url: string };
  let proxy: CountingProxy;
  let service: TokenService;
  let owner: Wallet;
  const contracts: string[] = [];

  before(async function () {
    node = await startNode(11155111);
    proxy = await startCountingProxy(node.url);
    service = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/sepolia": proxy.url } });
    owner = service.createWallet(SEPOLIA);
    // The faucet refuses live networks, so the test funds the sender on the node itself.
    await rpc(node.url, "hardhat_setBalance", [owner.address, toQuantity(10n ** 19n)]);
  });

  after(async function () {
    await service?.close();
    await proxy?.close();
    await node?.server.close();
  });

  it("reports the configured pair as live, the others as simulated", function () {
    const networks = service.networks();
    expect(networks.find((entry) => entry.chain === "ethereum" && entry.network === "sepolia")).to.include({
      simulated: false,
      backend: "json-rpc",
      endpoint: new URL(proxy.url).host,
    });
    expect(networks.find((entry) => entry.chain === "ethereum" && entry.network === "mainnet")).to.include({ simulated: true });
  });

  it("reads native balances from the node, saying simulated: false", async function () {
    const result = await service.getBalances({ ...SEPOLIA, address: owner.address });
    expect(result).to.deep.equal({
      chain: "ethereum",
      network: "sepolia",
      address: owner.address,
      simulated: false,
      balances: { ETH: { balance: "10000000000000000000", uiBalance: "10" } },
    });
  });

  it("refuses the faucet with LIVE_NETWORK_FAUCET and changes nothing", async function () {
    const error = await expectServiceError(
      service.faucet({ ...SEPOLIA, address: owner.address }),
      ErrorCode.LIVE_NETWORK_FAUCET,
      "network",
    );
    expect(error.message).to.include("live network");
    expect(BigInt((await rpc(node.url, "eth_getBalance", [owner.address, "latest"])) as string)).to.equal(10n ** 19n);
  });

  it("launches ERC20 and ERC721 tokens over HTTP JSON-RPC and reads them back", async function () {
    for (const [symbol, decimals, supply] of [
      ["LVA", 18, "1000000000000000000000"],
      ["LVB", 8, "250000000"],
      ["LVC", 0, "7"],
    ] as const) {
      const launched = await service.launch({
        ...SEPOLIA,
        type: "erc20",
        token: { name: `Live ${symbol}`, symbol, decimals, initialSupply: supply },
        sender: owner.address,
        privateKey: owner.privateKey,
      });
      expect(launched.simulated).to.equal(false);
      const status = await expectMined(service, SEPOLIA, launched.transactionHash);
      expect(status.simulated).to.equal(false);
      // The tracker is done with it too: its looks at the node do not mix into the reads counted below.
      await expectOperationMined(service, launched);
      contracts.push(launched.contractAddress);
    }
    // The node agrees: the code is there.
    for (const contract of contracts)
      expect(((await rpc(node.url, "eth_getCode", [contract, "latest"])) as string).length).to.be.greaterThan(2);

    const result = await service.getBalances({ ...SEPOLIA, address: owner.address, erc20TokenContractAddresses: contracts });
    expect(result.simulated).to.equal(false);
    expect(result.balances.LVA).to.include({ balance: "1000000000000000000000", uiBalance: "1000", decimals: 18 });
    expect(result.balances.LVB).to.include({ balance: "250000000", uiBalance: "2.5", decimals: 8 });
    expect(result.balances.LVC).to.include({ balance: "7", uiBalance: "7", decimals: 0 });

    const nft = await service.launch({
      ...SEPOLIA,
      type: "erc721",
      token: { name: "Live NFT", symbol: "LNFT", uri: "ipfs://live/" },
      sender: owner.address,
      privateKey: owner.privateKey,
    });
    await expectOperationMined(service, nft);
    const mint = await service.mint({
      ...SEPOLIA,
      type: "erc721",
      contractAddress: nft.contractAddress,
      to: owner.address,
      sender: owner.address,
      privateKey: owner.privateKey,
    });
    await expectOperationMined(service, mint);
    const nfts = await service.getTokenBalance({ ...SEPOLIA, address: owner.address, tokenAddress: nft.contractAddress, type: "erc721" });
    expect(nfts).to.include({ balance: "1", simulated: false });
    expect(nfts.tokenIds).to.deep.equal(["1"]);
  });

  it("reads a token's info with one eth_getCode: the code that says a contract is there also says which functions it has", async function () {
    const before = proxy.requests.length;
    const info = await service.getTokenInfo({ ...SEPOLIA, contractAddress: contracts[0]! });
    // "mintable" is read from the code (its mint function), not from any interface the token declares.
    expect(info).to.deep.include({ type: "ERC20", symbol: "LVA", features: ["accessControl", "capped", "mintable"] });
    const calls = proxy.requests.slice(before).flat();
    expect(calls.filter((method) => method === "eth_getCode")).to.have.lengthOf(1);
  });

  it("reads the native balance and several ERC20 balances in ONE node call (the reader contract run by eth_call)", async function () {
    expect(contracts).to.have.length(3);
    const reader = service.createWallet(SEPOLIA);
    // Cold (symbols and decimals not cached yet) and warm: each read is one round trip.
    const cold = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/sepolia": proxy.url } });
    try {
      // Connecting asks the node for its chain id once; the reads come after.
      await cold.evmChain(resolveNetwork("ethereum", "sepolia"), "read");
      for (const which of [cold, service]) {
        const before = proxy.requests.length;
        const result = await which.getBalances({ ...SEPOLIA, address: owner.address, erc20TokenContractAddresses: contracts });
        expect(Object.keys(result.balances)).to.deep.equal(["ETH", "LVA", "LVB", "LVC"]);
        const sent = proxy.requests.slice(before);
        expect(sent, JSON.stringify(sent)).to.deep.equal([["eth_call"]]);
      }
    } finally {
      await cold.close();
    }
    const before = proxy.requests.length;
    await service.getBalances({ ...SEPOLIA, address: reader.address, erc20TokenContractAddresses: contracts });
    expect(proxy.requests.length - before).to.equal(1);
  });

  it("asks the node at every read (no answer is shared on a live network), and sees a mint once it is mined", async function () {
    const read = () => service.getBalances({ ...SEPOLIA, address: owner.address, erc20TokenContractAddresses: [contracts[0]!] });
    const before = proxy.requests.length;
    const [first, second] = await Promise.all([read(), read()]);
    expect(second).to.deep.equal(first);
    expect(
      proxy.requests
        .slice(before)
        .flat()
        .filter((method) => method === "eth_call"),
    ).to.have.length(2);
    const mint = await service.mint({
      ...SEPOLIA,
      type: "erc20",
      contractAddress: contracts[0]!,
      to: owner.address,
      amount: "9",
      sender: owner.address,
      privateKey: owner.privateKey,
    });
    await expectMined(service, SEPOLIA, mint.transactionHash);
    expect(BigInt((await read()).balances.LVA!.balance)).to.equal(BigInt(first.balances.LVA!.balance) + 9n);
  });

  it("serializes concurrent launches from one sender: nonces read fresh from the node never collide", async function () {
    const launches = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        service.launch({
          ...SEPOLIA,
          type: "erc721",
          token: { name: `Batch ${index}`, symbol: `B${index}` },
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
      ),
    );
    const nonces = launches.map((launch) => launch.nonce).sort((a, b) => a - b);
    expect(new Set(nonces).size).to.equal(5);
    expect(nonces[4]! - nonces[0]!).to.equal(4);
    await Promise.all(launches.map((launch) => expectMined(service, SEPOLIA, launch.transactionHash)));
  });

  it("asks the node for eth_estimateGas once per launch shape, one by one and batched, and on every mint; each gas limit covers its transaction", async function () {
    const estimatesSince = (before: number) =>
      proxy.requests
        .slice(before)
        .flat()
        .filter((method) => method === "eth_estimateGas").length;
    // One shape: names and symbols of the same lengths (no other test launches these), a non-zero supply of any size.
    const erc20 = (index: number, initialSupply: string, name = `Reused shape ${index}`) =>
      service.launch({
        ...SEPOLIA,
        type: "erc20",
        token: { name, symbol: `RS${index}`, initialSupply },
        sender: owner.address,
        privateKey: owner.privateKey,
      });
    // Learnt from the supply with the fewest non-zero bytes: the later ones' calldata costs more than the first's.
    const supplies = ["1", "1000", (2n ** 255n + 12345n).toString()];
    let before = proxy.requests.length;
    const sequential = [];
    for (const [index, supply] of supplies.entries()) {
      sequential.push(await erc20(index, supply));
      expect(estimatesSince(before), `after launch ${index + 1}`).to.equal(1);
    }
    before = proxy.requests.length;
    const batched = await Promise.all(Array.from({ length: 4 }, (_, index) => erc20(3 + index, supplies[index % 3]!)));
    expect(estimatesSince(before), "a known shape").to.equal(0);
    before = proxy.requests.length;
    const newShape = await Promise.all(Array.from({ length: 3 }, (_, index) => erc20(index, "7", `Another shape ${index}`)));
    expect(estimatesSince(before), "a new shape's first launch").to.equal(1);
    const mints = [];
    for (let index = 0; index < 2; index++) {
      before = proxy.requests.length;
      mints.push(
        await service.mint({
          ...SEPOLIA,
          type: "erc20",
          contractAddress: sequential[0]!.contractAddress,
          to: owner.address,
          amount: "5",
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
      );
      expect(estimatesSince(before), `mint ${index + 1}`).to.equal(1);
    }
    for (const sent of [...sequential, ...batched, ...newShape, ...mints]) {
      await expectMined(service, SEPOLIA, sent.transactionHash);
      const transaction = (await rpc(node.url, "eth_getTransactionByHash", [sent.transactionHash])) as {
        gas: string;
        input: string;
        to: string | null;
      };
      const receipt = (await rpc(node.url, "eth_getTransactionReceipt", [sent.transactionHash])) as { gasUsed: string; status: string };
      expect(receipt.status).to.equal("0x1");
      // At least the node's own estimate of this very transaction with the service's headroom, whether the node was
      // asked for it or its shape's estimate was reused; at most 25 % above what it used.
      const estimate = BigInt(
        (await rpc(node.url, "eth_estimateGas", [
          { from: owner.address, ...(transaction.to ? { to: transaction.to } : {}), data: transaction.input },
        ])) as string,
      );
      expect(BigInt(transaction.gas) >= (estimate * 120n) / 100n).to.equal(true);
      expect(BigInt(transaction.gas) <= (BigInt(receipt.gasUsed) * 125n) / 100n).to.equal(true);
    }
  });

  it("goes live through TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK> too", async function () {
    const fromEnv = await createTokenService({ hre, env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url } });
    try {
      const result = await fromEnv.getBalances({ ...SEPOLIA, address: owner.address });
      expect(result.simulated).to.equal(false);
      expect(BigInt(result.balances.ETH!.balance) > 0n).to.equal(true);
      await expectServiceError(fromEnv.faucet({ ...SEPOLIA, address: owner.address }), ErrorCode.LIVE_NETWORK_FAUCET, "network");
    } finally {
      await fromEnv.close();
    }
  });

  it("refuses an endpoint that serves another chain id with CHAIN_ID_MISMATCH", async function () {
    const other = await startNode();
    const mismatched = await createTokenService({ hre, env: {}, rpcUrls: { "binance_smart_chain/testnet": other.url } });
    try {
      const error = await expectServiceError(
        mismatched.getBalances({ chain: "binance_smart_chain", network: "testnet", address: owner.address }),
        ErrorCode.CHAIN_ID_MISMATCH,
        "network",
      );
      expect(error.details).to.deep.equal({ expectedChainId: 97, reportedChainId: 31337 });
    } finally {
      await mismatched.close();
      await other.server.close();
    }
  });

  it("gives up on a node that never answers with UPSTREAM_TIMEOUT", async function () {
    const silent = await startSilentServer();
    const stuck = await createTokenService({ hre, env: {}, requestTimeoutMs: 300, rpcUrls: { "ethereum/hoodi": silent.url } });
    try {
      const started = Date.now();
      await expectServiceError(
        stuck.getBalances({ chain: "ethereum", network: "hoodi", address: owner.address }),
        ErrorCode.UPSTREAM_TIMEOUT,
        undefined,
      );
      expect(Date.now() - started).to.be.below(5_000);
    } finally {
      await stuck.close();
      await silent.close();
    }
  });
});
