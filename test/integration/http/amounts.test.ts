import { expect } from "chai";
import { Contract, Wallet, parseEther, type AbstractProvider } from "ethers";

import { resolveNetwork } from "../../../src/domain/chains.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";

// Issue 32's silent traps, through HTTP: amounts echoed in whole units with their decimals and a warning where they look
// like a unit mix-up (never a refusal), and token URIs that wallets can fetch.

const SEPOLIA = { chain: "ethereum", network: "sepolia" };

describe("HTTP: amounts say what they are, URIs have a scheme", function () {
  this.timeout(120_000);
  let api: RunningServer;
  let node: AbstractProvider;
  let owner: Wallet;
  const keyOf = (wallet: Wallet) => ({ sender: wallet.address, privateKey: wallet.privateKey });

  before(async function () {
    api = await startServer();
    node = (await api.server.service.evmChain(resolveNetwork("ethereum", "sepolia"), "test")).provider;
    owner = Wallet.createRandom() as unknown as Wallet;
    const grant = await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: owner.address, amount: parseEther("10").toString() });
    expect(grant.status, JSON.stringify(grant.body)).to.equal(200);
    expect(grant.body).to.include({ decimals: 18 });
    expect(grant.body, "10 ETH is no mix-up").not.to.have.property("warnings");
  });

  after(async function () {
    await api?.stop();
  });

  it("grants a faucet amount of 5 (wei) as asked, with a warning naming amount and the decimals", async function () {
    const address = Wallet.createRandom().address;
    const grant = await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address, amount: "5" });
    expect(grant.status, JSON.stringify(grant.body)).to.equal(200);
    expect(grant.body.amount).to.deep.equal({ balance: "5", uiBalance: "0.000000000000000005" });
    expect(grant.body.decimals).to.equal(18);
    expect(grant.body.warnings).to.have.length(1);
    expect(grant.body.warnings[0]).to.include({ code: "AMOUNT_BELOW_ONE_GWEI", field: "amount" });
    expect(await node.getBalance(address)).to.equal(5n);
    // An idempotent retry answered from the record says the same.
    const record = (await api.server.service.operations.store.getOperation(grant.body.id))!;
    expect(api.server.service.operations.outcomeOf(record)).to.deep.equal(grant.body);
  });

  it("launches an 18-decimal ERC20 with initialSupply 1000, echoing 10^-15 tokens and warning of token.initialSupply", async function () {
    const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "SERVICE_ERC20",
      token: { name: "Dust", symbol: "DST", initialSupply: "1000" },
      ...keyOf(owner),
    });
    expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
    expect(launched.body).to.include({ initialSupply: "1000", uiInitialSupply: "0.000000000000001", decimals: 18 });
    expect(launched.body).not.to.have.property("totalSupply");
    expect(launched.body.warnings).to.have.length(1);
    expect(launched.body.warnings[0]).to.include({ code: "AMOUNT_BELOW_ONE_TOKEN", field: "token.initialSupply" });
    expect(launched.body.warnings[0].message).to.include("0.000000000000001 DST");
    const record = (await api.server.service.operations.store.getOperation(launched.body.id))!;
    expect(api.server.service.operations.outcomeOf(record)).to.deep.equal(launched.body);

    // Whole tokens, capped: echoed, no warning.
    const whole = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "Gold", symbol: "GLD", decimals: 6, initialSupply: "1500000", totalSupply: "1000000000" },
      ...keyOf(owner),
    });
    expect(whole.status, JSON.stringify(whole.body)).to.equal(200);
    expect(whole.body).to.include({ uiInitialSupply: "1.5", totalSupply: "1000000000", uiTotalSupply: "1000", decimals: 6 });
    expect(whole.body).not.to.have.property("warnings");
  });

  it("echoes ERC20 mints, transfers, approvals and burns in whole units, warning below one token", async function () {
    const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "Coin", symbol: "CN", initialSupply: parseEther("100").toString(), options: { burnable: true, mintable: true } },
      ...keyOf(owner),
    });
    expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
    const contractAddress = launched.body.contractAddress;
    const to = Wallet.createRandom().address;
    const token = { ...SEPOLIA, type: "ERC20", contractAddress, ...keyOf(owner) };

    const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", { ...token, to, amount: "5" });
    expect(minted.status, JSON.stringify(minted.body)).to.equal(200);
    expect(minted.body).to.include({ amount: "5", uiAmount: "0.000000000000000005", decimals: 18 });
    expect(minted.body.warnings.map((warning: { field: string }) => warning.field)).to.deep.equal(["amount"]);

    const batch = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
      ...token,
      recipients: [
        { to, amount: parseEther("2").toString() },
        { to, amount: "7" },
      ],
    });
    expect(batch.status, JSON.stringify(batch.body)).to.equal(200);
    expect(batch.body.decimals).to.equal(18);
    expect(batch.body.recipients.map((item: { uiAmount: string }) => item.uiAmount)).to.deep.equal(["2", "0.000000000000000007"]);
    expect(batch.body.warnings.map((warning: { field: string }) => warning.field)).to.deep.equal(["recipients[1].amount"]);

    const sent = await api.call("POST", "/api/v1/transfers?wait=mined", { ...token, to, amount: parseEther("1.5").toString() });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    expect(sent.body).to.include({ uiAmount: "1.5", decimals: 18 });
    expect(sent.body).not.to.have.property("warnings");

    const approved = await api.call("POST", "/api/v1/tokens/approve?wait=mined", { ...token, spender: to, amount: "1" });
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body).to.include({ uiAmount: "0.000000000000000001", decimals: 18 });
    expect(approved.body.warnings[0]).to.include({ code: "AMOUNT_BELOW_ONE_TOKEN", field: "amount" });
    const revoked = await api.call("POST", "/api/v1/tokens/approve?wait=mined", { ...token, spender: to, amount: "0" });
    expect(revoked.body, "0 revokes: no warning").to.include({ uiAmount: "0" }).and.not.to.have.property("warnings");

    const burned = await api.call("POST", "/api/v1/tokens/burn?wait=mined", { ...token, amount: "3" });
    expect(burned.status, JSON.stringify(burned.body)).to.equal(200);
    expect(burned.body).to.include({ amount: "3", uiAmount: "0.000000000000000003", decimals: 18 });
    expect(burned.body.warnings[0].field).to.equal("amount");

    // The record keeps the decimals, so that the answer rebuilt from it (an idempotent retry) echoes the same.
    const record = (await api.server.service.operations.store.getOperation(burned.body.id))!;
    expect(record.params).to.deep.equal({ contractAddress, amount: "3", decimals: 18 });
    expect(api.server.service.operations.outcomeOf(record)).to.deep.equal(burned.body);
  });

  it("echoes a native transfer in ETH, warning below 1 gwei", async function () {
    const to = Wallet.createRandom().address;
    const sent = await api.call("POST", "/api/v1/transfers?wait=mined", { ...SEPOLIA, type: "NATIVE", to, amount: "42", ...keyOf(owner) });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    expect(sent.body).to.include({ amount: "42", uiAmount: "0.000000000000000042", decimals: 18 });
    expect(sent.body.warnings[0]).to.include({ code: "AMOUNT_BELOW_ONE_GWEI", field: "amount" });
  });

  it("refuses an ERC721 or ERC1155 URI without a scheme, naming the field and the rule", async function () {
    for (const [type, token] of [
      ["ERC721", { name: "Art", symbol: "ART", uri: "my picture" }],
      ["ERC721", { name: "Art", symbol: "ART", uri: "art/" }],
      ["ERC1155", { name: "Items", uri: "items/{id}.json" }],
    ] as const) {
      const refused = await api.call("POST", "/api/v1/tokens", { ...SEPOLIA, type, token, ...keyOf(owner) });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      expect(refused.body.error).to.include({ code: "INVALID_ARGUMENT", field: "token.uri" });
      expect(refused.body.error.message).to.include("ipfs://").and.include("https://");
    }
  });

  it("mints a relative per-token URI onto the base (uriStorage), and refuses one with spaces", async function () {
    const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC721",
      token: { name: "Art", symbol: "ART", uri: "ipfs://base/", options: { uriStorage: true } },
      ...keyOf(owner),
    });
    expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
    const art = { ...SEPOLIA, type: "ERC721", contractAddress: launched.body.contractAddress, to: owner.address, ...keyOf(owner) };
    const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", { ...art, uri: "7.json" });
    expect(minted.status, JSON.stringify(minted.body)).to.equal(200);
    const contract = new Contract(launched.body.contractAddress, ["function tokenURI(uint256) view returns (string)"], node);
    expect(await contract.getFunction("tokenURI")(BigInt(minted.body.tokenId))).to.equal("ipfs://base/7.json");

    const refused = await api.call("POST", "/api/v1/tokens/mint", { ...art, uri: "my picture.json" });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
    expect(refused.body.error).to.include({ code: "INVALID_ARGUMENT", field: "uri" });
    const { to: _to, ...batch } = art;
    const scheme = await api.call("POST", "/api/v1/tokens/mint", {
      ...batch,
      recipients: [{ to: owner.address, uri: "javascript:alert(1)" }],
    });
    expect(scheme.status, JSON.stringify(scheme.body)).to.equal(400);
    expect(scheme.body.error).to.include({ field: "recipients[0].uri" });
  });
});
