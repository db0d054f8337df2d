import { expect } from "chai";

import { storeVariants } from "../../helpers/postgres-schema.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";

const STORES = storeVariants("hts_http");

for (const store of STORES) {
  describe(`HTTP service over a real socket — document flows — ${store.name}`, function () {
    let api: RunningServer;
    let dropSchema: () => Promise<void>;

    before(async function () {
      const database = await store.database(this);
      dropSchema = database.drop;
      api = await startServer(database.url ? { databaseUrl: database.url } : {});
    });

    after(async function () {
      await api?.stop();
      await dropSchema?.();
    });

    it("flow 1 (ERC20): create a wallet, fund it, poll the balance, launch, wait for mining, read the token balance", async function () {
      const created = await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "sepolia" });
      expect(created.status).to.equal(200);
      expect(created.body).to.have.keys("address", "privateKey", "chain", "network");
      expect(created.body.privateKey).to.match(/^0x[0-9a-f]{64}$/);
      const { address, privateKey } = created.body;

      const funded = await api.call("POST", "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address });
      expect(funded.status).to.equal(200);
      expect(funded.body.simulated).to.equal(true);

      const balance = await eventually(
        () => api.call("GET", `/api/v1/wallets?chain=ethereum&network=sepolia&address=${address}`),
        (response) => response.body.balances?.ETH?.balance !== "0",
      );
      expect(balance.body.balances.ETH).to.deep.equal({ balance: "10000000000000000000", uiBalance: "10" });

      const launch = await api.call("POST", "/api/v1/tokens?chain=ethereum&network=sepolia", {
        chain: "ethereum",
        network: "sepolia",
        type: "SERVICE_ERC20",
        token: { name: "Gold", symbol: "GLD", minter: address, account: address, initialSupply: "5000000000000000000000" },
        sender: address,
        privateKey,
      });
      expect(launch.status).to.equal(200);
      expect(launch.body).to.include({ status: "pending", type: "ERC20", chain: "ethereum", network: "sepolia", simulated: true });
      expect(launch.body.transactionHash).to.match(/^0x[0-9a-f]{64}$/);
      expect(JSON.stringify(launch.body)).not.to.include(privateKey.slice(2));

      const mined = await eventually(
        () => api.call("GET", `/api/v1/transactions/${launch.body.transactionHash}?chain=ethereum&network=sepolia`),
        (response) => response.body.status === "mined",
      );
      expect(mined.body.contractAddress).to.equal(launch.body.contractAddress);

      const tokens = await api.call(
        "GET",
        `/api/v1/wallets?chain=ethereum&network=sepolia&address=${address}&erc20TokenContractAddresses=${launch.body.contractAddress}`,
      );
      expect(tokens.status).to.equal(200);
      expect(tokens.body.balances.GLD).to.deep.equal({
        balance: "5000000000000000000000",
        uiBalance: "5000",
        contractAddress: launch.body.contractAddress,
        decimals: 18,
        symbol: "GLD",
      });
    });

    it("ERC721 flow: launch with wait=mined, mint, read the balance through the address= path and the plain path", async function () {
      const { body: wallet } = await api.call("POST", "/api/v1/wallets", { chain: "binance_smart_chain", network: "testnet" });
      await api.call("POST", "/api/v1/faucet", { chain: "binance_smart_chain", network: "testnet", address: wallet.address });
      const launch = await api.call("POST", "/api/v1/tokens?wait=mined", {
        chain: "binance_smart_chain",
        network: "testnet",
        type: "SERVICE_ERC721",
        token: { name: "Art", symbol: "ART", uri: "ipfs://art/" },
        sender: wallet.address,
        privateKey: wallet.privateKey,
      });
      expect(launch.status).to.equal(200);
      expect(launch.body.status).to.equal("mined");

      const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        chain: "binance_smart_chain",
        network: "testnet",
        type: "erc721",
        contractAddress: launch.body.contractAddress,
        to: wallet.address,
        sender: wallet.address,
        privateKey: wallet.privateKey,
      });
      expect(minted.status).to.equal(200);
      expect(minted.body).to.include({ status: "mined", tokenId: "1" });

      const query = `tokenAddress=${launch.body.contractAddress}&type=erc721&chain=binance_smart_chain&network=testnet`;
      const documentForm = await api.call("GET", `/api/v1/tokens/address=${wallet.address}/balance?${query}`);
      expect(documentForm.status).to.equal(200);
      expect(documentForm.body).to.include({
        address: wallet.address,
        tokenAddress: launch.body.contractAddress,
        type: "erc721",
        balance: "1",
      });
      expect(documentForm.body.tokenIds).to.deep.equal(["1"]);
      const plainForm = await api.call("GET", `/v1/tokens/${wallet.address}/balance?${query}`);
      expect(plainForm.body).to.deep.equal(documentForm.body);
    });

    it("flow 3: an Ethereum wallet on rinkeby, funded, its balance read under /v1 with the apiKey query parameter", async function () {
      const created = await api.call("POST", "/v1/wallets", { chain: "ethereum", network: "rinkeby" });
      expect(created.status).to.equal(200);
      await api.call("POST", "/v1/faucet", {
        chain: "ethereum",
        network: "rinkeby",
        address: created.body.address,
        amount: "1500000000000000000",
      });
      const response = await fetch(
        `${api.baseUrl}/v1/wallets?apiKey=test-key-0123456789&chain=ethereum&network=rinkeby&address=${created.body.address}`,
      );
      expect(response.status).to.equal(200);
      const body = await response.json();
      expect(body.balances.ETH).to.deep.equal({ balance: "1500000000000000000", uiBalance: "1.5" });
      expect(body.simulated).to.equal(true);
    });

    it("lists the caller's launches, mints and faucet grants newest first, with pagination", async function () {
      const first = await api.call("GET", "/api/v1/operations?limit=2");
      expect(first.status).to.equal(200);
      expect(first.body.items).to.have.length(2);
      expect(first.body.nextCursor).to.be.a("string");
      const second = await api.call("GET", `/api/v1/operations?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
      expect(second.body.items.map((item: { id: string }) => item.id)).not.to.include.members(
        first.body.items.map((item: { id: string }) => item.id),
      );
      const all = await api.call("GET", "/api/v1/operations?limit=100");
      const kinds = all.body.items.map((item: { kind: string }) => item.kind);
      expect(kinds).to.include.members(["launch", "mint", "faucet"]);
      const times = all.body.items.map((item: { createdAt: string }) => Date.parse(item.createdAt));
      expect([...times].sort((a, b) => b - a)).to.deep.equal(times);
      const launch = all.body.items.find((item: { kind: string; type: string }) => item.kind === "launch" && item.type === "ERC20");
      expect(launch.params).to.include({ name: "Gold", symbol: "GLD" });
      expect(launch.status).to.be.oneOf(["pending", "mined"]);
      expect(JSON.stringify(all.body)).not.to.match(/privateKey/);
    });

    it("narrows the list by kind, status, sender, chain and network; GET /tokens lists launches alone", async function () {
      type Item = { id: string; kind: string; status: string; sender: string | null; chain: string; network: string };
      const all = (await api.call("GET", "/api/v1/operations?limit=100")).body.items as Item[];
      const listed = async (query: string) => {
        const answer = await api.call("GET", `/api/v1/operations?limit=100&${query}`);
        expect(answer.status, `${query}: ${JSON.stringify(answer.body).slice(0, 300)}`).to.equal(200);
        return (answer.body.items as Item[]).map((item) => item.id);
      };
      const ids = (keep: (item: Item) => boolean) => all.filter(keep).map((item) => item.id);
      expect(await listed("kind=launch")).to.deep.equal(ids((item) => item.kind === "launch"));
      expect(await listed("kind=mint,faucet")).to.deep.equal(ids((item) => item.kind === "mint" || item.kind === "faucet"));
      expect(await listed("kind=mint&kind=FAUCET")).to.deep.equal(ids((item) => item.kind === "mint" || item.kind === "faucet"));
      expect(await listed("status=mined")).to.deep.equal(ids((item) => item.status === "mined"));
      const sender = all.find((item) => item.sender !== null)!.sender!;
      expect(await listed(`sender=${sender.toLowerCase()}`)).to.deep.equal(ids((item) => item.sender === sender));
      expect(await listed("chain=ethereum&network=rinkeby")).to.deep.equal(
        ids((item) => item.chain === "ethereum" && item.network === "rinkeby"),
      );
      expect(await listed("chain=bitcoin")).to.deep.equal([]);
      // Filters and pages together: two pages of launches are the launches.
      const firstPage = await api.call("GET", "/api/v1/operations?kind=launch&limit=1");
      const secondPage = await api.call(
        "GET",
        `/api/v1/operations?kind=launch&limit=100&cursor=${encodeURIComponent(firstPage.body.nextCursor)}`,
      );
      expect([...firstPage.body.items, ...secondPage.body.items].map((item: Item) => item.id)).to.deep.equal(
        ids((item) => item.kind === "launch"),
      );
      const tokens = await api.call("GET", "/api/v1/tokens?limit=100");
      expect(tokens.body.items.map((item: Item) => item.id)).to.deep.equal(ids((item) => item.kind === "launch"));
      // A wrong filter names itself.
      for (const [query, field] of [
        ["kind=launches", "kind"],
        ["status=done", "status"],
        ["network=rinkeby", "network"],
        ["chain=dogecoin", "chain"],
        ["chain=ethereum&network=nowhere", "network"],
        ["sender=", "sender"],
      ] as const) {
        const refused = await api.call("GET", `/api/v1/operations?${query}`);
        expect(refused.status, query).to.equal(400);
        expect(refused.body.error, query).to.include({ code: "INVALID_ARGUMENT", field });
      }
      expect((await api.call("GET", "/api/v1/tokens?kind=mint")).status, "GET /tokens takes no kind").to.equal(400);
    });
  });
}
