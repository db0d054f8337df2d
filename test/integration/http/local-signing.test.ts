import { expect } from "chai";
import { Wallet, type TransactionRequest } from "ethers";

import { storeVariants } from "../../helpers/postgres-schema.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";

const STORES = storeVariants("hts_signing");
const pair = { chain: "ethereum", network: "sepolia" };

async function fundedKey(api: RunningServer): Promise<Wallet> {
  const wallet = Wallet.createRandom();
  const funded = await api.call("POST", "/api/v1/faucet", { ...pair, address: wallet.address });
  expect(funded.status).to.equal(200);
  return new Wallet(wallet.privateKey);
}

const erc20Body = (sender: string) => ({
  ...pair,
  type: "SERVICE_ERC20",
  token: { name: "Gold", symbol: "GLD", initialSupply: "1000" },
  sender,
});

/** The prepared transaction signed by `signer`, with `changes` applied first (a tampering caller). */
function sign(signer: Wallet, unsigned: Record<string, unknown>, changes: Partial<TransactionRequest> = {}): Promise<string> {
  return signer.signTransaction({ ...(unsigned as TransactionRequest), ...changes });
}

async function prepare(api: RunningServer, path: string, body: Record<string, unknown>) {
  const prepared = await api.call("POST", path, body);
  expect(prepared.status, JSON.stringify(prepared.body)).to.equal(200);
  expect(prepared.body).to.have.property("unsignedTransaction");
  return prepared.body as { unsignedTransaction: Record<string, unknown> & { nonce: number }; expiresAt: string; contractAddress?: string };
}

for (const store of STORES) {
  describe(`local signing: prepare → sign → submit — ${store.name}`, function () {
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

    it("an ERC20 launch prepared without a key, signed by the caller and submitted, is recorded and mined like a key-in-body launch", async function () {
      const signer = await fundedKey(api);
      const prepared = await prepare(api, "/api/v1/tokens", erc20Body(signer.address));
      expect(prepared).to.include({ ...pair, type: "ERC20", sender: signer.address });
      expect(prepared.unsignedTransaction).to.include({ chainId: 11155111, type: 2, nonce: 0, to: null, value: "0" });
      expect(prepared.unsignedTransaction).to.have.keys(
        "chainId",
        "type",
        "nonce",
        "gasLimit",
        "maxFeePerGas",
        "maxPriorityFeePerGas",
        "to",
        "data",
        "value",
      );
      expect(Date.parse(prepared.expiresAt)).to.be.greaterThan(Date.now());

      const signedTransaction = await sign(signer, prepared.unsignedTransaction);
      const launched = await api.call("POST", "/api/v1/tokens?wait=mined", { ...erc20Body(signer.address), signedTransaction });
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      expect(launched.body).to.include({ status: "mined", sender: signer.address, nonce: 0, contractAddress: prepared.contractAddress });

      const records = await api.call("GET", "/api/v1/operations?limit=5");
      const record = records.body.items.find((item: { id: string }) => item.id === launched.body.id);
      expect(record).to.include({ kind: "launch", status: "mined", transactionHash: launched.body.transactionHash });
      expect(record.transitions.map((transition: { status: string }) => transition.status)).to.deep.equal(["signed", "pending", "mined"]);
      const stored = await api.server.store.getOperation(launched.body.id);
      expect(stored!.rawTransaction).to.equal(signedTransaction);

      const balance = await api.call(
        "GET",
        `/api/v1/wallets?chain=ethereum&network=sepolia&address=${signer.address}&erc20TokenContractAddresses=${prepared.contractAddress}`,
      );
      expect(balance.body.balances.GLD).to.include({ balance: "1000" });
    });

    it("an ERC721 launch and a mint go the same way, the mint reporting its token id", async function () {
      const signer = await fundedKey(api);
      const launchBody = { ...pair, type: "ERC721", token: { name: "Art", symbol: "ART" }, sender: signer.address };
      const preparedLaunch = await prepare(api, "/api/v1/tokens", launchBody);
      const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
        ...launchBody,
        signedTransaction: await sign(signer, preparedLaunch.unsignedTransaction),
      });
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      expect(launched.body).to.include({ status: "mined", type: "ERC721", contractAddress: preparedLaunch.contractAddress });

      const mintBody = {
        ...pair,
        type: "ERC721",
        contractAddress: launched.body.contractAddress,
        to: signer.address,
        sender: signer.address,
      };
      const preparedMint = await prepare(api, "/api/v1/tokens/mint", mintBody);
      expect(preparedMint).not.to.have.property("contractAddress");
      expect(preparedMint.unsignedTransaction).to.include({ to: launched.body.contractAddress, nonce: 1 });
      const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        ...mintBody,
        signedTransaction: await sign(signer, preparedMint.unsignedTransaction),
      });
      expect(minted.status, JSON.stringify(minted.body)).to.equal(200);
      expect(minted.body).to.include({ status: "mined", tokenId: "1", to: signer.address });
    });

    it("two prepares reserve two nonces, and a key-in-body launch meanwhile takes the next free one", async function () {
      const signer = await fundedKey(api);
      const first = await prepare(api, "/api/v1/tokens", erc20Body(signer.address));
      const second = await prepare(api, "/api/v1/tokens", erc20Body(signer.address));
      expect([first.unsignedTransaction.nonce, second.unsignedTransaction.nonce]).to.deep.equal([0, 1]);
      expect(second.contractAddress).not.to.equal(first.contractAddress);

      const withKey = await api.call("POST", "/api/v1/tokens", {
        ...erc20Body(signer.address),
        token: { name: "Silver", symbol: "SLV" },
        privateKey: signer.privateKey,
      });
      // An automining simulated chain refuses a nonce above a gap ("nonce too high"): recorded, the tracker sends it
      // once the reserved nonces below it are used (a live node would queue it at once and answer 200).
      expect(withKey.status, JSON.stringify(withKey.body)).to.equal(202);
      expect(withKey.body).to.include({ status: "signed", nonce: 2 });

      // Submitted out of order: each keeps its own nonce; all three are mined.
      const submittedSecond = await api.call("POST", "/api/v1/tokens", {
        ...erc20Body(signer.address),
        signedTransaction: await sign(signer, second.unsignedTransaction),
      });
      expect(submittedSecond.body).to.include({ status: "signed", contractAddress: second.contractAddress, nonce: 1 });
      const submittedFirst = await api.call("POST", "/api/v1/tokens?wait=mined", {
        ...erc20Body(signer.address),
        signedTransaction: await sign(signer, first.unsignedTransaction),
      });
      expect(submittedFirst.status, JSON.stringify(submittedFirst.body)).to.equal(200);
      expect(submittedFirst.body).to.include({ status: "mined", contractAddress: first.contractAddress, nonce: 0 });
      const ids = [withKey.body.id, submittedSecond.body.id];
      const records = await eventually(
        () => Promise.all(ids.map((id) => api.server.store.getOperation(id))),
        (found) => found.every((record) => record?.status === "mined"),
      );
      expect(records.map((record) => record!.nonce)).to.deep.equal([2, 1]);
    });

    it("a tampered or foreign transaction is refused, naming signedTransaction and the rule, and nothing is recorded", async function () {
      const signer = await fundedKey(api);
      const body = erc20Body(signer.address);
      const prepared = await prepare(api, "/api/v1/tokens", body);
      const unsigned = prepared.unsignedTransaction;
      const before = (await api.call("GET", "/api/v1/operations?limit=100")).body.items.length;
      const cases: Array<{ name: string; signed: Promise<string>; status: number; code: string; property?: string }> = [
        {
          name: "another nonce",
          signed: sign(signer, unsigned, { nonce: unsigned.nonce + 1 }),
          status: 409,
          code: "TRANSACTION_NOT_PREPARED",
        },
        {
          name: "other data",
          signed: sign(signer, unsigned, { data: `${unsigned.data}00` }),
          status: 422,
          code: "TRANSACTION_MISMATCH",
          property: "data",
        },
        {
          name: "another chain id",
          signed: sign(signer, unsigned, { chainId: 1 }),
          status: 422,
          code: "TRANSACTION_MISMATCH",
          property: "chainId",
        },
        {
          name: "another key",
          signed: sign(Wallet.createRandom() as unknown as Wallet, unsigned),
          status: 422,
          code: "KEY_SENDER_MISMATCH",
        },
        {
          name: "a changed gas limit",
          signed: sign(signer, unsigned, { gasLimit: BigInt(unsigned.gasLimit as string) + 1n }),
          status: 422,
          code: "TRANSACTION_MISMATCH",
          property: "gasLimit",
        },
        {
          name: "a changed fee",
          signed: sign(signer, unsigned, { maxPriorityFeePerGas: BigInt(unsigned.maxPriorityFeePerGas as string) + 1n }),
          status: 422,
          code: "TRANSACTION_MISMATCH",
          property: "maxPriorityFeePerGas",
        },
        {
          name: "a legacy transaction",
          signed: sign(signer, {
            ...unsigned,
            type: 0,
            maxFeePerGas: undefined,
            maxPriorityFeePerGas: undefined,
            gasPrice: unsigned.maxFeePerGas,
          }),
          status: 422,
          code: "TRANSACTION_MISMATCH",
          property: "type",
        },
        { name: "a value", signed: sign(signer, unsigned, { value: 1n }), status: 422, code: "TRANSACTION_MISMATCH", property: "value" },
      ];
      for (const tampered of cases) {
        const response = await api.call("POST", "/api/v1/tokens", { ...body, signedTransaction: await tampered.signed });
        expect(response.status, `${tampered.name}: ${JSON.stringify(response.body)}`).to.equal(tampered.status);
        expect(response.body.error, tampered.name).to.include({ code: tampered.code, field: "signedTransaction" });
        if (tampered.property) expect(response.body.error.details, tampered.name).to.include({ property: tampered.property });
      }
      const notHex = await api.call("POST", "/api/v1/tokens", { ...body, signedTransaction: "0xzz" });
      expect(notHex.status).to.equal(400);
      expect(notHex.body.error).to.include({ field: "signedTransaction" });
      const unsignedBytes = await api.call("POST", "/api/v1/tokens", { ...body, signedTransaction: "0x1234" });
      expect(unsignedBytes.status).to.equal(400);
      expect(unsignedBytes.body.error).to.include({ code: "INVALID_ARGUMENT", field: "signedTransaction" });
      const both = await api.call("POST", "/api/v1/tokens", {
        ...body,
        privateKey: signer.privateKey,
        signedTransaction: await sign(signer, unsigned),
      });
      expect(both.status).to.equal(400);
      expect(both.body.error).to.include({ field: "signedTransaction" });
      const otherBody = await api.call("POST", "/api/v1/tokens", {
        ...body,
        token: { name: "Silver", symbol: "SLV" },
        signedTransaction: await sign(signer, unsigned),
      });
      expect(otherBody.status).to.equal(422);
      expect(otherBody.body.error).to.include({ code: "TRANSACTION_MISMATCH", field: "signedTransaction" });
      expect((await api.call("GET", "/api/v1/operations?limit=100")).body.items.length).to.equal(before);

      // The untampered one still goes through.
      const honest = await api.call("POST", "/api/v1/tokens", { ...body, signedTransaction: await sign(signer, unsigned) });
      expect(honest.status, JSON.stringify(honest.body)).to.equal(200);
    });

    it("an idempotent retry replays the first answer; the same signed transaction without a key is refused as already submitted", async function () {
      const signer = await fundedKey(api);
      const body = erc20Body(signer.address);
      const prepared = await prepare(api, "/api/v1/tokens", body);
      const submit = { ...body, signedTransaction: await sign(signer, prepared.unsignedTransaction) };
      const first = await api.call("POST", "/api/v1/tokens", submit, { "idempotency-key": `submit-${signer.address}` });
      const retry = await api.call("POST", "/api/v1/tokens", submit, { "idempotency-key": `submit-${signer.address}` });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(retry.status).to.equal(200);
      expect(retry.headers.get("idempotent-replayed")).to.equal("true");
      expect(retry.body).to.deep.equal(first.body);
      const byHash = await api.call("GET", `/api/v1/operations/${first.body.transactionHash}?waitSeconds=30`);
      expect(byHash.body).to.include({ id: first.body.id, status: "mined", kind: "launch" });
      for (const unknown of ["no-such-id", "%00", `0x${"ab".repeat(32)}`]) {
        const missing = await api.call("GET", `/api/v1/operations/${unknown}`);
        expect(missing.status, unknown).to.equal(404);
        expect(missing.body.error).to.include({ code: "NOT_FOUND", field: "id" });
      }
      const again = await api.call("POST", "/api/v1/tokens", submit);
      expect(again.status).to.equal(409);
      expect(again.body.error).to.include({ code: "ALREADY_SUBMITTED", field: "signedTransaction" });
      expect(again.body.error.details).to.include({ operationId: first.body.id });
    });
  });
}

describe("local signing: reservations expire", function () {
  let api: RunningServer;

  before(async function () {
    api = await startServer({ nonceReservationMs: 1_000 });
  });

  after(async function () {
    await api?.stop();
  });

  const expired = (expiresAt: string) =>
    eventually(
      async () => Date.now(),
      (now) => now > Date.parse(expiresAt) + 20,
      10_000,
      50,
    );

  it("a reservation never used does not block the sender: after expiry the next prepare takes its nonce again", async function () {
    const signer = await fundedKey(api);
    const first = await prepare(api, "/api/v1/tokens", erc20Body(signer.address));
    await expired(first.expiresAt);
    const second = await prepare(api, "/api/v1/tokens", erc20Body(signer.address));
    expect(second.unsignedTransaction.nonce).to.equal(first.unsignedTransaction.nonce);
    const submitted = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...erc20Body(signer.address),
      signedTransaction: await sign(signer, second.unsignedTransaction),
    });
    expect(submitted.body).to.include({ status: "mined", nonce: 0 });
  });

  it("a submit after expiry is accepted while its nonce is still free, and refused once something took it", async function () {
    const signer = await fundedKey(api);
    const late = await prepare(api, "/api/v1/tokens", erc20Body(signer.address));
    await expired(late.expiresAt);
    const accepted = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...erc20Body(signer.address),
      signedTransaction: await sign(signer, late.unsignedTransaction),
    });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    expect(accepted.body).to.include({ status: "mined", nonce: 0 });

    const taken = await prepare(api, "/api/v1/tokens", erc20Body(signer.address));
    expect(taken.unsignedTransaction.nonce).to.equal(1);
    await expired(taken.expiresAt);
    // A key-in-body launch (of another token: the same one would be the very same transaction) takes the free nonce 1.
    const withKey = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...erc20Body(signer.address),
      token: { name: "Silver", symbol: "SLV" },
      privateKey: signer.privateKey,
    });
    expect(withKey.body).to.include({ status: "mined", nonce: 1 });
    const refused = await api.call("POST", "/api/v1/tokens", {
      ...erc20Body(signer.address),
      signedTransaction: await sign(signer, taken.unsignedTransaction),
    });
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.include({ code: "NONCE_TAKEN", field: "signedTransaction" });
  });
});
