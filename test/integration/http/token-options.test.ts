import { expect } from "chai";
import { Wallet, id } from "ethers";

import { resolveNetwork } from "../../../src/api.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";
import { ERC1155_ABI, independentProvider, token } from "../../helpers/token-client.js";

describe("HTTP service — token options, ERC1155 and CREATE2 launches", function () {
  let api: RunningServer;
  let wallet: { address: string; privateKey: string };
  const pair = { chain: "ethereum", network: "sepolia" };

  const launch = (type: string, fields: unknown, extra: Record<string, unknown> = {}) =>
    api.call("POST", "/api/v1/tokens?wait=mined", {
      ...pair,
      type,
      token: fields,
      sender: wallet.address,
      privateKey: wallet.privateKey,
      ...extra,
    });

  before(async function () {
    api = await startServer();
    wallet = (await api.call("POST", "/api/v1/wallets", pair)).body;
    await api.call("POST", "/api/v1/faucet", { ...pair, address: wallet.address });
  });

  after(async function () {
    await api?.stop();
  });

  it("answers 400 naming the field: an unknown option, a royalty over 10000 basis points, a salt that is not 32-byte hex", async function () {
    const cases: Array<[string, unknown, Record<string, unknown>, string]> = [
      ["ERC20", { name: "A", symbol: "A", options: { mintabel: true } }, {}, "token.options.mintabel"],
      ["ERC20", { name: "A", symbol: "A", options: { burnable: "true" } }, {}, "token.options.burnable"],
      ["ERC20", { name: "A", symbol: "A", options: { access: "admin" } }, {}, "token.options.access"],
      ["ERC20", { name: "A", symbol: "A", options: { capped: true } }, {}, "token.totalSupply"],
      [
        "ERC721",
        { name: "A", symbol: "A", options: { royalty: { receiver: wallet.address, basisPoints: 10_001 } } },
        {},
        "token.options.royalty.basisPoints",
      ],
      [
        "ERC721",
        { name: "A", symbol: "A", options: { royalty: { receiver: wallet.address, basisPoints: 1.5 } } },
        {},
        "token.options.royalty.basisPoints",
      ],
      ["ERC1155", { name: "A", options: { enumerable: true } }, {}, "token.options.enumerable"],
      ["ERC20", { name: "A", symbol: "A" }, { salt: "0x1234" }, "salt"],
      ["ERC20", { name: "A", symbol: "A" }, { salt: "ab".repeat(32) }, "salt"],
      ["ERC20", { name: "A", symbol: "A" }, { salt: 7 }, "salt"],
      ["ERC20", { name: "A", symbol: "A", options: { flashmint: "yes" } }, {}, "token.options.flashmint"],
      ["ERC20", { name: "A", symbol: "A", options: { callback: 1 } }, {}, "token.options.callback"],
      ["ERC721", { name: "A", symbol: "A", options: { flashmint: true } }, {}, "token.options.flashmint"],
      ["ERC1155", { name: "A", options: { updatableUri: "on" } }, {}, "token.options.updatableUri"],
    ];
    for (const [type, fields, extra, field] of cases) {
      const response = await launch(type, fields, extra);
      expect(response.status, `${field}: ${JSON.stringify(response.body)}`).to.equal(400);
      expect(response.body.error.field, JSON.stringify(response.body)).to.equal(field);
    }
  });

  it('answers 400 naming votes\' values (the Wizard\'s: true, false, "blocknumber", "timestamp") for another', async function () {
    for (const type of ["ERC20", "ERC721"]) {
      const response = await launch(type, { name: "A", symbol: "A", options: { votes: "seconds" } });
      expect(response.status, JSON.stringify(response.body)).to.equal(400);
      expect(response.body.error.field).to.equal("token.options.votes");
      expect(response.body.error.message).to.include('"blocknumber"').and.include('"timestamp"').and.include("true or false");
    }
  });

  it('answers 400 naming upgradeable\'s values ("uups", "transparent") for another: "beacon", 1, true', async function () {
    for (const [type, fields] of [
      ["ERC20", { name: "A", symbol: "A" }],
      ["ERC721", { name: "A", symbol: "A" }],
      ["ERC1155", { name: "A" }],
    ] as const) {
      for (const upgradeable of ["beacon", 1, true]) {
        const response = await launch(type, { ...fields, options: { upgradeable } });
        expect(response.status, JSON.stringify(response.body)).to.equal(400);
        expect(response.body.error.field).to.equal("token.options.upgradeable");
        expect(response.body.error.message, JSON.stringify(response.body)).to.include('"uups"').and.include('"transparent"');
      }
    }
  });

  it("launches with options and a salt, answers the address, and answers 409 ALREADY_DEPLOYED for the same launch again", async function () {
    const fields = { name: "Gold", symbol: "GLD", initialSupply: "5", options: { permit: true, burnable: true } };
    const salt = id("http-gold");
    const first = await launch("ERC20", fields, { salt });
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ status: "mined", type: "ERC20" });
    const again = await launch("ERC20", fields, { salt });
    expect(again.status).to.equal(409);
    expect(again.body.error).to.deep.include({
      code: "ALREADY_DEPLOYED",
      field: "salt",
      details: { contractAddress: first.body.contractAddress },
    });
    const record = await api.call("GET", `/api/v1/operations/${first.body.id}`);
    expect(record.body).to.deep.include({ contractAddress: first.body.contractAddress, type: "ERC20" });
    expect(record.body.params).to.deep.include({ salt, options: fields.options });
  });

  it("launches an ERC1155 collection and reads several ids' balances at once (tokenId=1,2&tokenId=3)", async function () {
    const launched = await launch("SERVICE_ERC1155", { name: "Items", uri: "https://items.example/{id}.json" });
    expect(launched.status).to.equal(200);
    expect(launched.body).to.include({ type: "ERC1155", status: "mined" });
    const collection = launched.body.contractAddress as string;

    const chain = await api.server.service.evmChain(resolveNetwork(pair.chain, pair.network), "test");
    const signer = new Wallet(wallet.privateKey, independentProvider(chain));
    const holder = Wallet.createRandom().address;
    await (await token(collection, ERC1155_ABI, signer).mintBatch!(holder, [1n, 3n], [4n, 6n], "0x")).wait();

    const path = `/api/v1/tokens/address=${holder}/balance?chain=ethereum&network=sepolia&type=erc1155&tokenAddress=${collection}`;
    const read = await api.call("GET", `${path}&tokenId=1,2&tokenId=3`);
    expect(read.status).to.equal(200);
    expect(read.body).to.include({ type: "erc1155", balance: "10", address: holder, tokenAddress: collection });
    expect(read.body.tokenBalances).to.deep.equal([
      { tokenId: "1", balance: "4" },
      { tokenId: "2", balance: "0" },
      { tokenId: "3", balance: "6" },
    ]);
    const missing = await api.call("GET", path);
    expect(missing.status).to.equal(400);
    expect(missing.body.error.field).to.equal("tokenId");
    const notAnId = await api.call("GET", `${path}&tokenId=one`);
    expect(notAnId.status).to.equal(400);
    expect(notAnId.body.error.field).to.equal("tokenId");
    const notErc1155 = await api.call(
      "GET",
      `/api/v1/tokens/address=${holder}/balance?chain=ethereum&network=sepolia&type=erc1155&tokenAddress=${wallet.address}&tokenId=1`,
    );
    expect(notErc1155.status).to.equal(422);
    expect(notErc1155.body.error.code).to.equal("NOT_A_TOKEN_CONTRACT");
  });
});
