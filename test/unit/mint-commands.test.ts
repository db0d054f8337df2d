import { expect } from "chai";

import { BUILT_IN_CHAINS } from "../../src/domain/chains.js";
import { TokenServiceError } from "../../src/domain/errors.js";
import { MAX_MINT_RECIPIENTS, mintFields, parseMintCommand } from "../../src/domain/mint-commands.js";

const ALICE = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const BOB = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const base = { chain: "ethereum", network: "sepolia", contractAddress: TOKEN, sender: ALICE };

const parse = (fields: Record<string, unknown>) => parseMintCommand({ ...base, ...fields } as never, BUILT_IN_CHAINS).params;

/** The field a refused request names; fails when the request is accepted. */
function refusedField(fields: Record<string, unknown>): string | undefined {
  let refused: unknown;
  try {
    parse(fields);
  } catch (error) {
    refused = error;
  }
  expect(refused, `${JSON.stringify(fields).slice(0, 120)} was accepted`).to.be.instanceOf(TokenServiceError);
  return (refused as TokenServiceError).field;
}

describe("mint commands: one recipient, ERC1155 ids to one holder, a batch of recipients", function () {
  it("parses each form, addresses checksummed, numbers as bigints", function () {
    expect(parse({ type: "erc1155", to: ALICE.toLowerCase(), tokenId: "7", amount: 3 })).to.deep.equal({
      type: "ERC1155",
      contractAddress: TOKEN,
      to: ALICE,
      tokenId: 7n,
      amount: 3n,
    });
    expect(parse({ type: "ERC1155", to: ALICE, tokenIds: ["1", "2"], amounts: ["10", "20"] })).to.deep.include({
      tokenIds: [1n, 2n],
      amounts: [10n, 20n],
    });
    expect(
      parse({
        type: "ERC721",
        recipients: [
          { to: ALICE, uri: "a.json" },
          { to: BOB, uri: "" },
        ],
      }),
    ).to.deep.equal({
      type: "ERC721",
      contractAddress: TOKEN,
      recipients: [{ to: ALICE, uri: "a.json" }, { to: BOB }],
    });
    expect(parse({ type: "ERC20", recipients: [{ to: ALICE, amount: "5" }] })).to.deep.equal({
      type: "ERC20",
      contractAddress: TOKEN,
      recipients: [{ to: ALICE, amount: 5n }],
    });
  });

  it("keeps in the record what the answer shows: numbers as decimal strings, a batch's recipients as given", function () {
    expect(mintFields(parse({ type: "ERC1155", recipients: [{ to: ALICE, tokenId: 2, amount: "9" }] }))).to.deep.equal({
      contractAddress: TOKEN,
      recipients: [{ to: ALICE, tokenId: "2", amount: "9" }],
    });
    expect(mintFields(parse({ type: "ERC721", to: ALICE, tokenId: 5, uri: "x" }))).to.deep.equal({
      contractAddress: TOKEN,
      to: ALICE,
      tokenId: "5",
      uri: "x",
    });
  });

  it("names the field of every bad batch: empty, over the bound, an item's address, an amount of 0, mixed ids, a repeated id", function () {
    const one = { to: ALICE, amount: "1" };
    expect(refusedField({ type: "ERC20", recipients: [] })).to.equal("recipients");
    expect(refusedField({ type: "ERC20", recipients: Array.from({ length: MAX_MINT_RECIPIENTS + 1 }, () => one) })).to.equal("recipients");
    const full = parse({ type: "ERC20", recipients: Array.from({ length: MAX_MINT_RECIPIENTS }, () => one) });
    expect("recipients" in full && full.recipients).to.have.length(MAX_MINT_RECIPIENTS);
    expect(refusedField({ type: "ERC20", recipients: [one, { to: "0xnope", amount: "1" }] })).to.equal("recipients[1].to");
    expect(refusedField({ type: "ERC20", recipients: [one, { to: `0x${"00".repeat(20)}`, amount: "1" }] })).to.equal("recipients[1].to");
    expect(refusedField({ type: "ERC20", recipients: [{ to: ALICE, amount: "0" }] })).to.equal("recipients[0].amount");
    expect(refusedField({ type: "ERC20", recipients: [one, "bob"] })).to.equal("recipients[1]");
    expect(refusedField({ type: "ERC721", recipients: [{ to: ALICE }, { to: BOB, tokenId: "1" }] })).to.equal("recipients[1].tokenId");
    expect(
      refusedField({
        type: "ERC721",
        recipients: [
          { to: ALICE, tokenId: "1" },
          { to: BOB, tokenId: "01" },
        ],
      }),
    ).to.equal("recipients[1].tokenId");
    expect(refusedField({ type: "ERC1155", recipients: [{ to: ALICE, tokenId: "1", amount: "1", uri: "x" }] })).to.equal(
      "recipients[0].uri",
    );
    expect(refusedField({ type: "ERC20", recipients: [one], amount: "1" })).to.equal("amount");
    expect(refusedField({ type: "ERC20", to: ALICE, amount: "0" })).to.equal("amount");
    expect(refusedField({ type: "ERC721", to: ALICE, amount: "1" })).to.equal("amount");
  });
});
