import { expect } from "chai";
import { Wallet } from "ethers";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { expectServiceError } from "../helpers/errors.js";
import { fundedWallet } from "../helpers/service.js";

const pair = { chain: "ethereum", network: "sepolia" };

describe("local signing through the programmatic API (operations kept in memory)", function () {
  let service: TokenService;

  before(async function () {
    service = await createTokenService({ hre, env: {}, nonceReservationMs: 60_000 });
  });

  after(async function () {
    await service?.close();
  });

  it("prepares a launch and a mint, takes them back signed, and follows them to mined", async function () {
    const funded = await fundedWallet(service, pair);
    const signer = new Wallet(funded.privateKey);
    const launchRequest = { ...pair, type: "ERC20", token: { name: "Gold", symbol: "GLD", initialSupply: "10" }, sender: signer.address };
    const prepared = await service.operations.prepareLaunch(launchRequest);
    expect(prepared.unsignedTransaction).to.include({ nonce: 0, to: null, type: 2 });
    const launch = await service.operations.launch({
      ...launchRequest,
      signedTransaction: await signer.signTransaction(prepared.unsignedTransaction),
    });
    expect(launch.contractAddress).to.equal(prepared.contractAddress);
    expect((await service.operations.settle(launch, 30_000)).status).to.equal("mined");

    const mintRequest = {
      ...pair,
      type: "ERC20",
      contractAddress: launch.contractAddress,
      to: signer.address,
      amount: "5",
      sender: signer.address,
    };
    const preparedMint = await service.operations.prepareMint(mintRequest);
    expect(preparedMint.unsignedTransaction).to.include({ nonce: 1, to: launch.contractAddress });
    const mint = await service.operations.mint({
      ...mintRequest,
      signedTransaction: await signer.signTransaction(preparedMint.unsignedTransaction),
    });
    expect((await service.operations.settle(mint, 30_000)).status).to.equal("mined");

    // The record holds the signed transaction as sent, and its params hold no signature or key.
    const record = await service.operations.store.getOperation(mint.id);
    // The token's decimals, read before signing, are kept beside the amount (the answer echoes it at them).
    expect(record!.params).to.deep.equal({ contractAddress: launch.contractAddress, to: signer.address, amount: "5", decimals: 18 });
  });

  it("refuses a prepare from a sender who cannot pay, and a submit with both a key and a signature", async function () {
    const poor = Wallet.createRandom();
    const request = { ...pair, type: "ERC721", token: { name: "Art", symbol: "ART" }, sender: poor.address };
    await expectServiceError(service.operations.prepareLaunch(request), ErrorCode.INSUFFICIENT_FUNDS, "sender");
    await expectServiceError(
      service.operations.launch({ ...request, privateKey: poor.privateKey, signedTransaction: "0x02" }),
      ErrorCode.INVALID_ARGUMENT,
      "signedTransaction",
    );
  });
});

describe("local signing through the programmatic API: no sender stranded by an abandoned prepare", function () {
  let service: TokenService;

  before(async function () {
    service = await createTokenService({ hre, env: {}, nonceReservationMs: 1_000 });
  });

  after(async function () {
    await service?.close();
  });

  it("key-in-body transfers above an abandoned prepare are mined once its reservation expired (fillers kept in memory)", async function () {
    const sender = await fundedWallet(service, pair);
    const request = { ...pair, type: "NATIVE" as const, to: sender.address, amount: "1", sender: sender.address };
    const prepared = await service.prepareTransfer(request);
    const sent = [];
    for (let index = 0; index < 3; index++)
      sent.push(await service.transfer({ ...request, to: Wallet.createRandom().address, privateKey: sender.privateKey }));
    expect(sent.map((each) => each.nonce)).to.deep.equal([1, 2, 3].map((step) => prepared.unsignedTransaction.nonce + step));
    // Within the reservation's second plus 10 s.
    const records = await Promise.all(sent.map((each) => service.operations.wait(each.id, 11_000)));
    expect(records.map((record) => record.status)).to.deep.equal(["mined", "mined", "mined"]);
  });
});
