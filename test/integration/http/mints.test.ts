import { expect } from "chai";
import { Contract, JsonRpcProvider, Wallet, formatUnits, parseEther, type AbstractProvider } from "ethers";

import { createTokenServiceClient, mintToken, type TokenServiceClient } from "../../../src/client/index.js";
import { resolveNetwork } from "../../../src/domain/chains.js";
import { MAX_MINT_RECIPIENTS } from "../../../src/domain/mint-commands.js";
import { startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { TEST_API_KEY, eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
import { storeVariants } from "../../helpers/postgres-schema.js";
import { ERC1155_ABI, ERC20_ABI, ERC721_ABI, MINTER_ROLE } from "../../helpers/token-client.js";
import { deployTestToken } from "../../helpers/test-tokens.js";
import { WebhookReceiver } from "../../helpers/webhook-receiver.js";

// Mints over HTTP, every effect read back from the node by the test's own ethers client: ERC1155 ids (one, or several to
// one holder), batches to many recipients in one transaction (ERC20, ERC721, ERC1155), the ownable check before signing,
// the ERC721 forms without uriStorage, and what is refused before anything is signed.

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
/** Hardhat's (and anvil's) tenth default account: funds the wallets on anvil, never a sender of the service. */
const ANVIL_FUNDER_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";
const ERC1155_EXTRA = [
  "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
  "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
  "function grantRole(bytes32 role, address account)",
  "function balanceOfBatch(address[], uint256[]) view returns (uint256[])",
];

interface Setup {
  api: RunningServer;
  /** The node, read without the service. */
  node: AbstractProvider;
  anvil?: AnvilNode;
  /** A new key holding `ether` ETH (the service never sees it unless a test sends it). */
  funded(ether: string): Promise<Wallet>;
  close(): Promise<void>;
}

async function simulated(databaseUrl: string | undefined): Promise<Setup> {
  const api = await startServer({
    env: { TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", TOKEN_SERVICE_WEBHOOK_POLL_SECONDS: "0.1" },
    ...(databaseUrl ? { databaseUrl } : {}),
  });
  const chain = await api.server.service.evmChain(resolveNetwork("ethereum", "sepolia"), "test");
  return {
    api,
    node: chain.provider,
    async funded(ether) {
      const wallet = Wallet.createRandom();
      const grant = await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: wallet.address, amount: parseEther(ether).toString() });
      expect(grant.status, JSON.stringify(grant.body)).to.equal(200);
      return new Wallet(wallet.privateKey, chain.provider);
    },
    close: () => api.stop(),
  };
}

async function onAnvil(): Promise<Setup> {
  const anvil = await startAnvil({ chainId: 11155111 });
  const api = await startServer({ rpcUrls: { "ethereum/sepolia": anvil.url } });
  const node = new JsonRpcProvider(anvil.url, 11155111, { staticNetwork: true, cacheTimeout: -1 });
  const funder = new Wallet(ANVIL_FUNDER_KEY, node);
  return {
    api,
    node,
    anvil,
    async funded(ether) {
      const wallet = Wallet.createRandom();
      await (await funder.sendTransaction({ to: wallet.address, value: parseEther(ether) })).wait();
      return new Wallet(wallet.privateKey, node);
    },
    async close() {
      await api.stop();
      node.destroy();
      await anvil.stop();
    },
  };
}

const setups: Array<{ name: string; start(context: Mocha.Context): Promise<Setup> }> = [
  ...storeVariants("hts_mints").map((store) => ({
    name: `simulated chain, ${store.name}`,
    async start(context: Mocha.Context) {
      const database = await store.database(context);
      const setup = await simulated(database.url);
      return { ...setup, close: () => setup.close().then(() => database.drop()) };
    },
  })),
  { name: "anvil (a live node), embedded SQLite", start: () => onAnvil() },
];

const fresh = (count: number) => Array.from({ length: count }, () => Wallet.createRandom().address);

for (const { name, start } of setups) {
  describe(`HTTP mints: ERC1155, batches, ownable tokens — ${name}`, function () {
    this.timeout(180_000);
    let setup: Setup;
    let api: RunningServer;
    let owner: Wallet;
    let items: string;
    let coins: string;
    let art: string;
    let bareArt: string;
    const keyOf = (wallet: Wallet) => ({ sender: wallet.address, privateKey: wallet.privateKey });
    const node = <T extends string[]>(address: string, abi: T) => new Contract(address, abi, setup.node);

    async function launched(type: string, token: Record<string, unknown>, signer = owner): Promise<string> {
      const answer = await api.call("POST", "/api/v1/tokens?wait=mined", { ...SEPOLIA, type, token, ...keyOf(signer) });
      expect(answer.body.status, JSON.stringify(answer.body)).to.equal("mined");
      return answer.body.contractAddress;
    }

    /** A refusal before anything is signed: the status and code, the sender's nonce unchanged, no record written. */
    async function refused(body: Record<string, unknown>, status: number, code: string, field: string | undefined) {
      const sender = String(body.sender);
      const [nonce, records] = await Promise.all([
        setup.node.getTransactionCount(sender, "pending"),
        api.call("GET", "/api/v1/operations?limit=100"),
      ]);
      const answer = await api.call("POST", "/api/v1/tokens/mint", body);
      expect([answer.status, answer.body.error?.code, answer.body.error?.field], JSON.stringify(answer.body)).to.deep.equal([
        status,
        code,
        field,
      ]);
      expect(await setup.node.getTransactionCount(sender, "pending")).to.equal(nonce);
      expect((await api.call("GET", "/api/v1/operations?limit=100")).body.items.length).to.equal(records.body.items.length);
      return answer.body.error;
    }

    before(async function () {
      setup = await start(this);
      api = setup.api;
      owner = await setup.funded("20");
      items = await launched("ERC1155", { name: "Items", uri: "https://example.com/items/{id}.json", options: { supply: true } });
      coins = await launched("ERC20", { name: "Coins", symbol: "CNS", options: { mintable: true, access: "ownable" } });
      art = await launched("ERC721", { name: "Art", symbol: "ART", uri: "ipfs://base/", options: { enumerable: true, uriStorage: true } });
      bareArt = await launched("ERC721", { name: "Bare", symbol: "BAR", uri: "https://bare.example/", options: { access: "ownable" } });
    });

    after(async function () {
      await setup?.close();
    });

    it("mints one ERC1155 id, then several ids to one holder with the collection's mintBatch; recorded, read back from the node", async function () {
      const holder = Wallet.createRandom().address;
      const one = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        ...SEPOLIA,
        type: "ERC1155",
        contractAddress: items,
        to: holder,
        tokenId: "7",
        amount: "25",
        ...keyOf(owner),
      });
      expect(one.status, JSON.stringify(one.body)).to.equal(200);
      expect(one.body).to.include({ status: "mined", type: "ERC1155", contractAddress: items, to: holder, tokenId: "7", amount: "25" });
      const several = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        ...SEPOLIA,
        type: "ERC1155",
        contractAddress: items,
        to: holder,
        tokenIds: ["1", "2", "7"],
        amounts: ["10", "20", "5"],
        ...keyOf(owner),
      });
      expect(several.status, JSON.stringify(several.body)).to.equal(200);
      expect(several.body).to.include({ status: "mined", type: "ERC1155", to: holder });
      expect(several.body.tokenIds).to.deep.equal(["1", "2", "7"]);
      expect(several.body.amounts).to.deep.equal(["10", "20", "5"]);

      const collection = node(items, [...ERC1155_ABI, ...ERC1155_EXTRA]);
      const balances = (await collection.getFunction("balanceOfBatch")([holder, holder, holder], [1n, 2n, 7n])) as bigint[];
      expect(balances).to.deep.equal([10n, 20n, 30n]);
      expect(await collection.getFunction("totalSupply(uint256)")(7n)).to.equal(30n);
      const receipt = await setup.node.getTransactionReceipt(several.body.transactionHash);
      const events = receipt!.logs.map((log) => collection.interface.parseLog(log)?.name ?? null);
      expect(events).to.deep.equal(["TransferBatch"]);

      const read = await api.call(
        "GET",
        `/api/v1/tokens/address=${holder}/balance?chain=ethereum&network=sepolia&type=erc1155&tokenAddress=${items}&tokenId=1,2,7`,
      );
      expect(read.body).to.include({ balance: "60" });
      const record = await api.call("GET", `/api/v1/operations/${several.body.id}`);
      expect(record.body).to.include({ kind: "mint", type: "ERC1155", status: "mined", contractAddress: items, sender: owner.address });
      expect(record.body.params).to.deep.equal({
        contractAddress: items,
        to: holder,
        tokenIds: ["1", "2", "7"],
        amounts: ["10", "20", "5"],
      });
    });

    it("an ERC20 batch: every recipient's balance from one transaction, all recorded in one operation", async function () {
      const recipients = fresh(3).map((to, index) => ({ to, amount: String((index + 1) * 1000) }));
      const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        ...SEPOLIA,
        type: "ERC20",
        contractAddress: coins,
        recipients,
        ...keyOf(owner),
      });
      expect(minted.status, JSON.stringify(minted.body)).to.equal(200);
      expect(minted.body).to.include({ status: "mined", type: "ERC20", contractAddress: coins });
      expect(minted.body).not.to.have.property("to");
      // Each amount echoed in whole tokens at the token's 18 decimals; each below one token, so each warned of.
      expect(minted.body.decimals).to.equal(18);
      expect(minted.body.recipients).to.deep.equal(recipients.map((item) => ({ ...item, uiAmount: formatUnits(BigInt(item.amount), 18) })));
      expect(minted.body.warnings.map((warning: { field: string }) => warning.field)).to.deep.equal(
        recipients.map((_, index) => `recipients[${index}].amount`),
      );
      const token = node(coins, ERC20_ABI);
      for (const { to, amount } of recipients) expect(await token.getFunction("balanceOf")(to)).to.equal(BigInt(amount));
      expect(await token.getFunction("totalSupply")()).to.equal(6000n);
      const receipt = await setup.node.getTransactionReceipt(minted.body.transactionHash);
      expect(receipt!.logs).to.have.length(3);
      const record = await api.call("GET", `/api/v1/operations/${minted.body.id}`);
      expect(record.body.params).to.deep.equal({ contractAddress: coins, recipients, decimals: 18 });
    });

    it("an ERC721 batch with URIs: next free ids in recipients' order (answered with wait=mined), each ownerOf and tokenURI on the node", async function () {
      const [first, second, third] = fresh(3) as [string, string, string];
      const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        ...SEPOLIA,
        type: "ERC721",
        contractAddress: art,
        recipients: [{ to: first, uri: "one.json" }, { to: second }, { to: third, uri: "three.json" }],
        ...keyOf(owner),
      });
      expect(minted.status, JSON.stringify(minted.body)).to.equal(200);
      expect(minted.body.tokenIds).to.deep.equal(["1", "2", "3"]);
      const nft = node(art, ERC721_ABI);
      expect(await Promise.all([1n, 2n, 3n].map((id) => nft.getFunction("ownerOf")(id)))).to.deep.equal([first, second, third]);
      expect(await Promise.all([1n, 2n, 3n].map((id) => nft.getFunction("tokenURI")(id)))).to.deep.equal([
        "ipfs://base/one.json",
        "ipfs://base/2",
        "ipfs://base/three.json",
      ]);
      const record = await api.call("GET", `/api/v1/operations/${minted.body.id}`);
      expect(record.body.result).to.deep.equal({ tokenIds: ["1", "2", "3"] });
    });

    it("an ERC721 without uriStorage: chosen ids (one, and a batch) through its two-argument forms; a uri is refused, naming the field", async function () {
      const holder = Wallet.createRandom().address;
      const one = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        ...SEPOLIA,
        type: "ERC721",
        contractAddress: bareArt,
        to: holder,
        tokenId: "42",
        ...keyOf(owner),
      });
      expect(one.status, JSON.stringify(one.body)).to.equal(200);
      expect(one.body).to.include({ status: "mined", tokenId: "42", to: holder });
      const [a, b] = fresh(2) as [string, string];
      const batch = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        ...SEPOLIA,
        type: "ERC721",
        contractAddress: bareArt,
        recipients: [
          { to: a, tokenId: "100" },
          { to: b, tokenId: "101" },
        ],
        ...keyOf(owner),
      });
      expect(batch.status, JSON.stringify(batch.body)).to.equal(200);
      expect(batch.body.tokenIds).to.deep.equal(["100", "101"]);
      const nft = node(bareArt, ERC721_ABI);
      expect(await Promise.all([42n, 100n, 101n].map((id) => nft.getFunction("ownerOf")(id)))).to.deep.equal([holder, a, b]);
      expect(await nft.getFunction("tokenURI")(42n)).to.equal("https://bare.example/42");

      const uri = await refused(
        { ...SEPOLIA, type: "ERC721", contractAddress: bareArt, to: holder, uri: "own.json", ...keyOf(owner) },
        422,
        "TOKEN_URI_UNSUPPORTED",
        "uri",
      );
      expect(uri.details).to.deep.equal({ function: "mint(address,string)" });
      await refused(
        { ...SEPOLIA, type: "ERC721", contractAddress: bareArt, to: holder, tokenId: "43", uri: "own.json", ...keyOf(owner) },
        422,
        "TOKEN_URI_UNSUPPORTED",
        "uri",
      );
      await refused(
        { ...SEPOLIA, type: "ERC721", contractAddress: bareArt, recipients: [{ to: a }, { to: b, uri: "x.json" }], ...keyOf(owner) },
        422,
        "TOKEN_URI_UNSUPPORTED",
        "recipients[1].uri",
      );
    });

    it("an ERC1155 batch to several holders, each balanceOf read from the node", async function () {
      const [a, b] = fresh(2) as [string, string];
      const recipients = [
        { to: a, tokenId: "11", amount: "3" },
        { to: b, tokenId: "11", amount: "4" },
        { to: a, tokenId: "12", amount: "5" },
      ];
      const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        ...SEPOLIA,
        type: "ERC1155",
        contractAddress: items,
        recipients,
        ...keyOf(owner),
      });
      expect(minted.status, JSON.stringify(minted.body)).to.equal(200);
      // ERC1155 amounts are counts: no decimals, no echo, no warning.
      expect(minted.body.recipients).to.deep.equal(recipients);
      expect(minted.body).not.to.have.property("warnings");
      const collection = node(items, [...ERC1155_ABI, ...ERC1155_EXTRA]);
      const balances = (await collection.getFunction("balanceOfBatch")([a, b, a, b], [11n, 11n, 12n, 12n])) as bigint[];
      expect(balances).to.deep.equal([3n, 4n, 5n, 0n]);
    });

    it("refuses recipients on the historic contracts (a launch without options), naming which launches have a batch mint", async function () {
      const historicErc20 = await launched("ERC20", { name: "Old", symbol: "OLD" });
      const historicErc721 = await launched("ERC721", { name: "Old Art", symbol: "OART" });
      const erc20 = await refused(
        { ...SEPOLIA, type: "ERC20", contractAddress: historicErc20, recipients: [{ to: owner.address, amount: "1" }], ...keyOf(owner) },
        422,
        "BATCH_MINT_UNSUPPORTED",
        "recipients",
      );
      expect(erc20.details).to.deep.equal({ function: "airdrop(address[],uint256[])" });
      expect(erc20.message).to.include("launched with token.options");
      await refused(
        { ...SEPOLIA, type: "ERC721", contractAddress: historicErc721, recipients: [{ to: owner.address }], ...keyOf(owner) },
        422,
        "BATCH_MINT_UNSUPPORTED",
        "recipients",
      );
      // One recipient per request still mints there, the ERC721 with a chosen id through its three-argument form.
      const single = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        ...SEPOLIA,
        type: "ERC721",
        contractAddress: historicErc721,
        to: owner.address,
        tokenId: "9",
        ...keyOf(owner),
      });
      expect(single.body).to.include({ status: "mined", tokenId: "9" });
      expect(await node(historicErc721, ERC721_ABI).getFunction("ownerOf")(9n)).to.equal(owner.address);
    });

    it("refuses a mint by someone other than an ownable token's owner before signing, naming the owner; the owner mints", async function () {
      const stranger = await setup.funded("1");
      for (const [type, contractAddress, what] of [
        ["ERC20", coins, { amount: "1" }],
        ["ERC721", bareArt, {}],
      ] as const) {
        const error = await refused(
          { ...SEPOLIA, type, contractAddress, to: stranger.address, ...what, ...keyOf(stranger) },
          422,
          "NOT_A_MINTER",
          "sender",
        );
        expect(error.details).to.deep.equal({ owner: owner.address });
        expect(error.message).to.include(`the token has one owner (Ownable), ${owner.address}`);
      }
      await refused(
        { ...SEPOLIA, type: "ERC20", contractAddress: coins, recipients: [{ to: stranger.address, amount: "1" }], ...keyOf(stranger) },
        422,
        "NOT_A_MINTER",
        "sender",
      );
      const ownable1155 = await launched("ERC1155", { name: "Owned", uri: "ipfs://owned/{id}", options: { access: "ownable" } });
      await refused(
        { ...SEPOLIA, type: "ERC1155", contractAddress: ownable1155, to: stranger.address, tokenId: "1", amount: "1", ...keyOf(stranger) },
        422,
        "NOT_A_MINTER",
        "sender",
      );
      const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        ...SEPOLIA,
        type: "ERC1155",
        contractAddress: ownable1155,
        to: stranger.address,
        tokenId: "1",
        amount: "2",
        ...keyOf(owner),
      });
      expect(minted.body.status, JSON.stringify(minted.body)).to.equal("mined");
      expect(await node(ownable1155, ERC1155_ABI).getFunction("balanceOf")(stranger.address, 1n)).to.equal(2n);
    });

    it("an idempotent retry of a batch answers the first outcome and sends once", async function () {
      const recipients = fresh(2).map((to) => ({ to, amount: "77" }));
      const body = { ...SEPOLIA, type: "ERC20", contractAddress: coins, recipients, ...keyOf(owner) };
      const headers = { "idempotency-key": `batch-${recipients[0]!.to}` };
      const nonceBefore = await setup.node.getTransactionCount(owner.address, "pending");
      const first = await api.call("POST", "/api/v1/tokens/mint?wait=mined", body, headers);
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      const replay = await api.call("POST", "/api/v1/tokens/mint?wait=mined", body, headers);
      expect(replay.status).to.equal(200);
      expect(replay.headers.get("idempotent-replayed")).to.equal("true");
      expect(replay.body).to.deep.equal(first.body);
      expect(await setup.node.getTransactionCount(owner.address, "pending")).to.equal(nonceBefore + 1);
      for (const { to } of recipients) expect(await node(coins, ERC20_ABI).getFunction("balanceOf")(to)).to.equal(77n);
    });

    it("the typed client mints a batch with a key that never leaves the caller (prepare → sign → submit)", async function () {
      const client: TokenServiceClient = createTokenServiceClient({ baseUrl: api.baseUrl, apiKey: TEST_API_KEY });
      const recipients = fresh(2).map((to, index) => ({ to, tokenId: String(200 + index), amount: "1" }));
      const minted = await mintToken(client, { ...SEPOLIA, type: "ERC1155", contractAddress: items, recipients }, owner, { wait: "mined" });
      expect(minted).to.include({ status: "mined", type: "ERC1155" });
      expect(minted.recipients).to.deep.equal(recipients);
      const collection = node(items, ERC1155_ABI);
      for (const { to, tokenId } of recipients) expect(await collection.getFunction("balanceOf")(to, BigInt(tokenId))).to.equal(1n);
    });

    it("answers 400 naming the field for each bad batch, ERC1155 or mint field, before reading the chain", async function () {
      const base = { ...SEPOLIA, contractAddress: coins, ...keyOf(owner) };
      const recipient = { to: owner.address, amount: "1" };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ type: "ERC20", recipients: [] }, "recipients"],
        [{ type: "ERC20", recipients: Array.from({ length: MAX_MINT_RECIPIENTS + 1 }, () => recipient) }, "recipients"],
        [{ type: "ERC20", recipients: [recipient, { to: "0x1234", amount: "1" }] }, "recipients[1].to"],
        [{ type: "ERC20", recipients: [recipient, { to: "0x" + "00".repeat(20), amount: "1" }] }, "recipients[1].to"],
        [{ type: "ERC20", recipients: [{ to: owner.address, amount: "0" }] }, "recipients[0].amount"],
        [{ type: "ERC20", recipients: [{ to: owner.address }] }, "recipients[0].amount"],
        [{ type: "ERC20", recipients: [{ ...recipient, tokenId: "1" }] }, "recipients[0].tokenId"],
        [{ type: "ERC20", recipients: [{ ...recipient, colour: "red" }] }, "recipients[0].colour"],
        [{ type: "ERC20", recipients: "everyone" }, "recipients"],
        [{ type: "ERC20", recipients: [recipient], to: owner.address }, "to"],
        [{ type: "ERC20", to: owner.address, amount: "0" }, "amount"],
        [{ type: "ERC721", recipients: [{ to: owner.address, tokenId: "1" }, { to: owner.address }] }, "recipients[1].tokenId"],
        [
          {
            type: "ERC721",
            recipients: [
              { to: owner.address, tokenId: "5" },
              { to: owner.address, tokenId: "5" },
            ],
          },
          "recipients[1].tokenId",
        ],
        [{ type: "ERC721", recipients: [{ to: owner.address, amount: "1" }] }, "recipients[0].amount"],
        [{ type: "ERC1155", recipients: [{ to: owner.address, amount: "1" }] }, "recipients[0].tokenId"],
        [{ type: "ERC1155", to: owner.address, amount: "1" }, "tokenId"],
        [{ type: "ERC1155", to: owner.address, tokenId: "1" }, "amount"],
        [{ type: "ERC1155", to: owner.address, tokenId: "1", amount: "1", uri: "x" }, "uri"],
        [{ type: "ERC1155", to: owner.address, tokenIds: ["1", "2"] }, "amounts"],
        [{ type: "ERC1155", to: owner.address, tokenIds: ["1", "2"], amounts: ["1"] }, "amounts"],
        [{ type: "ERC1155", to: owner.address, tokenIds: ["1"], amounts: ["0"] }, "amounts[0]"],
        [{ type: "ERC1155", to: owner.address, tokenIds: [], amounts: [] }, "tokenIds"],
        [{ type: "ERC20", to: owner.address, tokenIds: ["1"], amounts: ["1"] }, "tokenIds"],
      ];
      for (const [fields, field] of cases) {
        const answer = await api.call("POST", "/api/v1/tokens/mint", { ...base, ...fields });
        expect(
          [answer.status, answer.body.error?.code, answer.body.error?.field],
          `${JSON.stringify(fields).slice(0, 200)}: ${JSON.stringify(answer.body)}`,
        ).to.deep.equal([400, answer.body.error?.code === "INVALID_ADDRESS" ? "INVALID_ADDRESS" : "INVALID_ARGUMENT", field]);
      }
    });

    if (name.startsWith("anvil")) {
      it("all or nothing on chain: a batch whose last id was taken in the same block reverts, and mints none of its recipients", async function () {
        // A second minter takes id 301 with a higher tip while the service's batch (300, 301) waits in the same block.
        const rival = await setup.funded("1");
        const admin = owner.connect(setup.node);
        await (
          await new Contract(art, [...ERC721_ABI, "function grantRole(bytes32, address)"], admin).getFunction("grantRole")(
            MINTER_ROLE,
            rival.address,
          )
        ).wait();
        await setup.anvil!.rpc("evm_setAutomine", [false]);
        const [a, b] = fresh(2) as [string, string];
        try {
          const batch = await api.call("POST", "/api/v1/tokens/mint", {
            ...SEPOLIA,
            type: "ERC721",
            contractAddress: art,
            recipients: [
              { to: a, tokenId: "300" },
              { to: b, tokenId: "301" },
            ],
            ...keyOf(owner),
          });
          expect(batch.status, JSON.stringify(batch.body)).to.equal(200);
          const fee = await setup.node.getFeeData();
          await new Contract(art, ERC721_ABI, rival).getFunction("mintWithId(address,uint256)")(rival.address, 301n, {
            // Sent without an estimate: the node would estimate it against its pending block, where the batch holds 301.
            gasLimit: 300_000n,
            maxFeePerGas: fee.maxFeePerGas! * 3n + 10_000_000_000n,
            maxPriorityFeePerGas: fee.maxPriorityFeePerGas! * 3n + 5_000_000_000n,
          });
          await setup.anvil!.rpc("evm_mine");
          const record = await eventually(
            async () => (await api.call("GET", `/api/v1/operations/${batch.body.id}`)).body,
            (found) => found.status === "failed",
          );
          expect(record.error.code).to.equal("TRANSACTION_REVERTED");
        } finally {
          await setup.anvil!.rpc("evm_setAutomine", [true]);
        }
        const nft = node(art, ERC721_ABI);
        expect(await nft.getFunction("ownerOf")(301n)).to.equal(rival.address);
        expect(await nft.getFunction("balanceOf")(a)).to.equal(0n);
        expect(await nft.getFunction("balanceOf")(b)).to.equal(0n);
      });
    }

    if (name.startsWith("simulated chain")) {
      it("refuses, before signing, a batch to a contract that takes no ERC721 (WOULD_REVERT): none of its recipients is minted", async function () {
        const noReceiver = await (await deployTestToken("TestNoReceiver", owner)).getAddress();
        const holder = Wallet.createRandom().address;
        const error = await refused(
          { ...SEPOLIA, type: "ERC721", contractAddress: art, recipients: [{ to: holder }, { to: noReceiver }], ...keyOf(owner) },
          422,
          "WOULD_REVERT",
          undefined,
        );
        expect(error.details.error).to.equal("ERC721InvalidReceiver");
        expect(await node(art, ERC721_ABI).getFunction("balanceOf")(holder)).to.equal(0n);
      });

      it("a batch near the 16,777,216 gas a transaction may use is mined; one beyond it is refused before signing as out of gas", async function () {
        // 2 KB URIs cost about 1.6 million gas each: 9 fit within EIP-7825's cap, which the simulated chain enforces, 12 do not.
        const uri = "u".repeat(2048);
        const near = fresh(9).map((to) => ({ to, uri }));
        const mined = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
          ...SEPOLIA,
          type: "ERC721",
          contractAddress: art,
          recipients: near,
          ...keyOf(owner),
        });
        expect(mined.status, JSON.stringify(mined.body).slice(0, 400)).to.equal(200);
        expect(mined.body.status).to.equal("mined");
        const transaction = await setup.node.getTransaction(mined.body.transactionHash);
        expect(transaction!.gasLimit <= 16_777_216n, `gas limit ${transaction!.gasLimit}`).to.equal(true);
        const receipt = await setup.node.getTransactionReceipt(mined.body.transactionHash);
        expect(receipt!.gasUsed > 12_000_000n, `gas used ${receipt!.gasUsed}`).to.equal(true);
        for (const { to } of near) expect(await node(art, ERC721_ABI).getFunction("balanceOf")(to)).to.equal(1n);

        const error = await refused(
          { ...SEPOLIA, type: "ERC721", contractAddress: art, recipients: fresh(12).map((to) => ({ to, uri })), ...keyOf(owner) },
          422,
          "WOULD_REVERT",
          undefined,
        );
        expect(error.details).to.deep.include({ outOfGas: true });
        expect(error.message).to.include("would run out of gas");
      });

      it("posts a batch mint's operation.pending and operation.mined to a subscribed webhook", async function () {
        const receiver = new WebhookReceiver();
        await receiver.listen();
        try {
          const created = await api.call("POST", "/api/v1/webhooks", {
            url: receiver.url(),
            events: ["operation.pending", "operation.mined"],
          });
          expect(created.status).to.equal(201);
          const recipients = fresh(2).map((to) => ({ to, amount: "5" }));
          const sent = await api.call("POST", "/api/v1/tokens/mint", {
            ...SEPOLIA,
            type: "ERC20",
            contractAddress: coins,
            recipients,
            ...keyOf(owner),
          });
          expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
          const events = await eventually(
            async () => receiver.received.filter((event) => event.json.data.id === sent.body.id),
            (found) => found.some((event) => event.json.type === "operation.mined"),
          );
          expect(events.map((event) => event.json.type)).to.deep.equal(["operation.pending", "operation.mined"]);
          expect(events[1]!.json.data).to.include({ kind: "mint", type: "ERC20", status: "mined" });
          expect(events[1]!.json.data.params).to.deep.equal({ contractAddress: coins, recipients, decimals: 18 });
          await api.call("DELETE", `/api/v1/webhooks/${created.body.id}`);
        } finally {
          await receiver.close();
        }
      });
    }
  });
}
