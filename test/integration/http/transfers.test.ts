import { expect } from "chai";
import { Contract, Wallet, parseEther } from "ethers";

import { approve, createTokenServiceClient, transfer, type TokenServiceClient } from "../../../src/client/index.js";
import { TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";
import { httpWriteSetups, webhookEventsOf, type Setup } from "../../helpers/http-write-setups.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const erc20 = ["function balanceOf(address) view returns (uint256)", "function allowance(address, address) view returns (uint256)"];
const erc721 = ["function ownerOf(uint256) view returns (address)", "function isApprovedForAll(address, address) view returns (bool)"];
const setups = httpWriteSetups("hts_transfers");

for (const { name, start } of setups) {
  describe(`HTTP transfers and approvals — ${name}`, function () {
    this.timeout(120_000);
    let setup: Setup;
    let api: RunningServer;
    let client: TokenServiceClient;
    let owner: Wallet;
    let gold: string;
    let art: string;
    const keyOf = (wallet: Wallet) => ({ sender: wallet.address, privateKey: wallet.privateKey });

    before(async function () {
      setup = await start(this);
      api = setup.api;
      client = createTokenServiceClient({ baseUrl: api.baseUrl, apiKey: TEST_API_KEY });
      owner = await setup.funded("10");
      const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
        ...SEPOLIA,
        type: "ERC20",
        token: { name: "Gold", symbol: "GLD", initialSupply: parseEther("100").toString() },
        ...keyOf(owner),
      });
      expect(launched.body.status, JSON.stringify(launched.body)).to.equal("mined");
      gold = launched.body.contractAddress;
      const nft = await api.call("POST", "/api/v1/tokens?wait=mined", {
        ...SEPOLIA,
        type: "ERC721",
        token: { name: "Art", symbol: "ART" },
        ...keyOf(owner),
      });
      art = nft.body.contractAddress;
      for (let index = 0; index < 3; index++) {
        const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
          ...SEPOLIA,
          type: "ERC721",
          contractAddress: art,
          to: owner.address,
          ...keyOf(owner),
        });
        expect(minted.body.status).to.equal("mined");
      }
    });

    after(async function () {
      await setup?.close();
    });

    it("sends native currency with wait=mined, recorded as a transfer, the balances read back from the node", async function () {
      const recipient = Wallet.createRandom().address;
      const sent = await api.call("POST", "/api/v1/transfers?wait=mined", {
        ...SEPOLIA,
        type: "NATIVE",
        to: recipient,
        amount: parseEther("2").toString(),
        ...keyOf(owner),
      });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
      expect(sent.body).to.include({ status: "mined", type: "NATIVE", to: recipient, amount: parseEther("2").toString() });
      expect(sent.body.id).to.be.a("string");
      expect(sent.body.nonce).to.be.a("number");
      expect(sent.body.blockNumber).to.be.a("number");
      expect(await setup.node.getBalance(recipient)).to.equal(parseEther("2"));

      const record = await api.call("GET", `/api/v1/operations/${sent.body.id}`);
      expect(record.body).to.include({ kind: "transfer", type: "NATIVE", status: "mined", contractAddress: null, sender: owner.address });
      expect(record.body.params).to.deep.equal({ to: recipient, amount: parseEther("2").toString(), decimals: 18 });
      expect(record.body.transitions.map((transition: { status: string }) => transition.status)).to.include("mined");
    });

    it("an idempotent retry of a transfer answers the first outcome and sends once", async function () {
      const recipient = Wallet.createRandom().address;
      const body = { ...SEPOLIA, type: "ERC20", contractAddress: gold, to: recipient, amount: "1234", ...keyOf(owner) };
      const headers = { "idempotency-key": `transfer-${recipient}` };
      const nonceBefore = await setup.node.getTransactionCount(owner.address, "pending");
      const [first, second] = await Promise.all([
        api.call("POST", "/api/v1/transfers?wait=mined", body, headers),
        api.call("POST", "/api/v1/transfers?wait=mined", body, headers),
      ]);
      // The second waited for the first, or was told it is still running: never a second send.
      const answers = [first, second].filter((answer) => answer.status === 200);
      expect(answers.length, JSON.stringify([first.body, second.body])).to.be.at.least(1);
      for (const answer of [first, second]) expect([200, 409]).to.include(answer.status);
      const replay = await api.call("POST", "/api/v1/transfers?wait=mined", body, headers);
      expect(replay.status).to.equal(200);
      expect(replay.headers.get("idempotent-replayed")).to.equal("true");
      expect(replay.body).to.deep.equal(answers[0]!.body);
      expect(await setup.node.getTransactionCount(owner.address, "pending")).to.equal(nonceBefore + 1);
      expect(await new Contract(gold, erc20, setup.node).getFunction("balanceOf")(recipient)).to.equal(1234n);

      // The same key with another body is a conflict, and sends nothing.
      const conflict = await api.call("POST", "/api/v1/transfers", { ...body, amount: "1" }, headers);
      expect(conflict.status).to.equal(409);
      expect(conflict.body.error.code).to.equal("IDEMPOTENCY_CONFLICT");
      expect(await setup.node.getTransactionCount(owner.address, "pending")).to.equal(nonceBefore + 1);
    });

    it("the typed client transfers and approves with a key that never leaves the caller (prepare → sign → submit)", async function () {
      const signer = await setup.funded("1");
      const recipient = Wallet.createRandom().address;
      const sent = await transfer(client, { ...SEPOLIA, type: "NATIVE", to: recipient, amount: parseEther("0.5").toString() }, signer, {
        wait: "mined",
      });
      expect(sent).to.include({ status: "mined", type: "NATIVE", sender: signer.address, to: recipient });
      expect(await setup.node.getBalance(recipient)).to.equal(parseEther("0.5"));

      // Gold for the signer, then it approves a spender: the allowance read and the node agree.
      const funded = await api.call("POST", "/api/v1/transfers?wait=mined", {
        ...SEPOLIA,
        type: "ERC20",
        contractAddress: gold,
        to: signer.address,
        amount: "900",
        ...keyOf(owner),
      });
      expect(funded.body.status).to.equal("mined");
      const spender = Wallet.createRandom().address;
      const approval = await approve(client, { ...SEPOLIA, type: "ERC20", contractAddress: gold, spender, amount: "300" }, signer, {
        wait: "mined",
      });
      expect(approval).to.include({ status: "mined", type: "ERC20", spender, amount: "300" });
      expect(await new Contract(gold, erc20, setup.node).getFunction("allowance")(signer.address, spender)).to.equal(300n);
      const allowance = await api.call(
        "GET",
        `/api/v1/tokens/allowance?chain=ethereum&network=sepolia&type=erc20&contractAddress=${gold}&owner=${signer.address}&spender=${spender}`,
      );
      expect(allowance.status, JSON.stringify(allowance.body)).to.equal(200);
      expect(allowance.body).to.include({ type: "ERC20", allowance: "300", owner: signer.address, spender });
    });

    it("moves an ERC721 token and approves an operator; the owner's ids and the token's metadata follow", async function () {
      const recipient = Wallet.createRandom().address;
      const moved = await api.call("POST", "/api/v1/transfers?wait=mined", {
        ...SEPOLIA,
        type: "ERC721",
        contractAddress: art,
        to: recipient,
        tokenId: "2",
        ...keyOf(owner),
      });
      expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
      expect(moved.body).to.include({ status: "mined", type: "ERC721", tokenId: "2", contractAddress: art });
      expect(moved.body).not.to.have.property("amount");
      expect(await new Contract(art, erc721, setup.node).getFunction("ownerOf")(2n)).to.equal(recipient);

      const operator = Wallet.createRandom().address;
      const approved = await api.call("POST", "/api/v1/tokens/approve?wait=mined", {
        ...SEPOLIA,
        type: "ERC721",
        contractAddress: art,
        spender: operator,
        all: true,
        ...keyOf(owner),
      });
      expect(approved.body).to.include({ status: "mined", all: true, spender: operator });
      expect(await new Contract(art, erc721, setup.node).getFunction("isApprovedForAll")(owner.address, operator)).to.equal(true);

      const page = await api.call("GET", `/api/v1/tokens/${art}/owners/${owner.address}/tokens?chain=ethereum&network=sepolia&limit=1`);
      expect(page.status, JSON.stringify(page.body)).to.equal(200);
      expect(page.body).to.include({ balance: "2", source: "enumerable", owner: owner.address, contractAddress: art });
      expect(page.body.tokenIds).to.deep.equal(["1"]);
      const next = await api.call(
        "GET",
        `/v1/tokens/${art}/owners/${owner.address}/tokens?chain=ethereum&network=sepolia&limit=1&cursor=${page.body.nextCursor}`,
      );
      expect(next.body.tokenIds).to.deep.equal(["3"]);
      expect(next.body.nextCursor).to.equal(null);

      const info = await api.call("GET", `/api/v1/tokens/${art}?chain=ethereum&network=sepolia`);
      expect(info.status, JSON.stringify(info.body)).to.equal(200);
      expect(info.body).to.include({ type: "ERC721", name: "Art", symbol: "ART", totalSupply: "3" });
      expect(info.body.features).to.deep.equal(["accessControl", "enumerable", "metadata", "mintable"]);
      const goldInfo = await api.call("GET", `/api/v1/tokens/${gold}?chain=ethereum&network=sepolia`);
      expect(goldInfo.body).to.include({ type: "ERC20", decimals: 18, symbol: "GLD" });
    });

    it("refuses, before signing, a transfer of more than the balance or of a token the sender does not hold: 422 naming the field", async function () {
      const before = (await api.call("GET", "/api/v1/operations?limit=100")).body.items.length;
      const nonce = await setup.node.getTransactionCount(owner.address, "pending");
      const tooMuch = await api.call("POST", "/api/v1/transfers", {
        ...SEPOLIA,
        type: "ERC20",
        contractAddress: gold,
        to: Wallet.createRandom().address,
        amount: parseEther("1000").toString(),
        ...keyOf(owner),
      });
      expect(tooMuch.status).to.equal(422);
      expect(tooMuch.body.error).to.include({ code: "INSUFFICIENT_TOKEN_BALANCE", field: "amount" });
      expect(tooMuch.body.error.details.reason).to.equal("ERC20InsufficientBalance");
      const notHeld = await api.call("POST", "/api/v1/transfers", {
        ...SEPOLIA,
        type: "ERC721",
        contractAddress: art,
        to: Wallet.createRandom().address,
        tokenId: "2",
        ...keyOf(owner),
      });
      expect(notHeld.status).to.equal(422);
      expect(notHeld.body.error).to.include({ code: "NOT_TOKEN_OWNER", field: "tokenId" });
      expect(await setup.node.getTransactionCount(owner.address, "pending")).to.equal(nonce);
      expect((await api.call("GET", "/api/v1/operations?limit=100")).body.items.length).to.equal(before);
    });

    if (name.startsWith("simulated chain")) {
      it("posts a transfer's operation.pending and operation.mined to a subscribed webhook", async function () {
        const events = await webhookEventsOf(api, () =>
          api.call("POST", "/api/v1/transfers", {
            ...SEPOLIA,
            type: "NATIVE",
            to: Wallet.createRandom().address,
            amount: "1",
            ...keyOf(owner),
          }),
        );
        expect(events.map((event) => event.json.type)).to.deep.equal(["operation.pending", "operation.mined"]);
        expect(events[1]!.json.data).to.include({ kind: "transfer", type: "NATIVE", status: "mined" });
      });
    }
  });
}
