import { expect } from "chai";
import { createServer } from "node:net";

import { CreateKeyCommand, KMSClient, SignCommand } from "@aws-sdk/client-kms";
import type { TransactionLike } from "ethers";
import {
  createPublicClient,
  getAddress,
  http,
  parseTransaction,
  recoverTransactionAddress,
  toHex,
  type Hex,
  type PublicClient,
  type TransactionSerialized,
} from "viem";
import { publicKeyToAddress } from "viem/accounts";

import { AwsKmsKeyError } from "../../src/chains/signers/aws-kms-errors.js";
import { awsKmsKeys, type AwsKmsKeys } from "../../src/chains/signers/aws-kms-signer.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { expectServiceError } from "../helpers/errors.js";
import { startKmsStandIn, type KmsStandIn } from "../helpers/kms-stand-in.js";

// The AWS KMS signer as the send path uses it: the real AWS SDK client against a loopback KMS stand-in (the one thing
// here that is not the real one), and every signature judged by a real anvil node and read back with viem, a second
// Ethereum implementation beside the ethers the signer is built on.

const CHAIN_ID = 11155111; // startAnvil's default
const GWEI = 1_000_000_000n;
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n; // secp256k1's n / 2
const RECIPIENT = "0x000000000000000000000000000000000000dEaD";
/** Made-up credentials: the SDK signs its requests with them (SigV4); the stand-in does not check the signature. */
const CREDENTIALS = { accessKeyId: "AKIASTANDINEXAMPLE00", secretAccessKey: "stand-in-secret-not-an-aws-secret-000000" };

/** Caught, for a test to look at (the promise must reject). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

async function expectKeyError(promise: Promise<unknown>, problem: AwsKmsKeyError["problem"], ...quoted: string[]) {
  const error = await rejection(promise);
  expect(error, String(error)).to.be.instanceOf(AwsKmsKeyError);
  expect((error as AwsKmsKeyError).problem, (error as Error).message).to.equal(problem);
  for (const text of quoted) expect((error as Error).message).to.include(text);
  return error as AwsKmsKeyError;
}

/** A loopback port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("AWS KMS signer, through the AWS SDK against a loopback KMS stand-in, sending to a real anvil", function () {
  let anvil: AnvilNode;
  let kms: KmsStandIn;
  let keys: AwsKmsKeys;
  let chain: PublicClient;
  let key: { keyId: string; address: string };

  before(async function () {
    [anvil, kms] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), startKmsStandIn()]);
    keys = awsKmsKeys({ region: kms.region, endpoint: kms.endpoint, credentials: CREDENTIALS });
    chain = createPublicClient({ transport: http(anvil.url) });
    key = await keys.createKey();
    await anvil.rpc("anvil_setBalance", [key.address, toHex(10n ** 18n)]);
  });

  afterEach(function () {
    kms?.failWith(undefined);
  });

  after(async function () {
    keys?.close();
    await Promise.all([kms?.close(), anvil?.stop()]);
  });

  /** A transfer of `value` wei from the KMS key's address with the next nonce, EIP-1559 or legacy. */
  async function transfer(type: 0 | 2, nonceOffset = 0, value = 1_000n): Promise<TransactionLike> {
    const nonce = (await chain.getTransactionCount({ address: key.address as Hex, blockTag: "pending" })) + nonceOffset;
    const common = { chainId: CHAIN_ID, nonce, to: RECIPIENT, value, gasLimit: 21_000n };
    return type === 2
      ? { ...common, type, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: GWEI }
      : { ...common, type, gasPrice: 20n * GWEI };
  }

  /** Sends a raw transaction to anvil (which mines it at once) and reads its receipt back with viem. */
  async function send(signed: { raw: string; hash: string }) {
    expect(await anvil.rpc("eth_sendRawTransaction", [signed.raw])).to.equal(signed.hash);
    return chain.waitForTransactionReceipt({ hash: signed.hash as Hex, timeout: 30_000 });
  }

  it("creates an ECC_SECG_P256K1 key through the SDK (SigV4-signed requests) and derives its address from its public key", async function () {
    expect(key.keyId).to.match(/^arn:aws:kms:us-east-1:111122223333:key\/[0-9a-f-]{36}$/);
    // viem's address of the point node:crypto made in the stand-in: the DER was read right.
    expect(key.address).to.equal(publicKeyToAddress(kms.publicPoint(key.keyId) as Hex));
    expect(await keys.addressOf(key.keyId)).to.equal(key.address);
    expect(kms.requests.slice(0, 2)).to.deep.equal([
      { operation: "CreateKey", sigV4: true },
      { operation: "GetPublicKey", sigV4: true },
    ]);
    expect(keys.signer(key.keyId, key.address.toLowerCase())).to.include({ address: key.address, kind: "aws-kms" });
  });

  it("signs an EIP-1559 transfer and a legacy one that anvil mines as sent from the KMS address", async function () {
    const signer = keys.signer(key.keyId, key.address);
    const before = await chain.getBalance({ address: RECIPIENT });
    for (const [type, viemType] of [
      [2, "eip1559"],
      [0, "legacy"],
    ] as const) {
      const signed = await signer.signTransaction(await transfer(type));
      const receipt = await send(signed);
      expect(receipt.status, viemType).to.equal("success");
      expect(getAddress(receipt.from)).to.equal(key.address);
      const mined = await chain.getTransaction({ hash: signed.hash as Hex });
      expect(mined).to.include({ type: viemType, chainId: CHAIN_ID });
      expect(getAddress(mined.from)).to.equal(key.address);
      // viem recovers the sender from the raw form itself, as the node did.
      expect(await recoverTransactionAddress({ serializedTransaction: signed.raw as TransactionSerialized })).to.equal(key.address);
    }
    expect((await chain.getBalance({ address: RECIPIENT })) - before).to.equal(2_000n);
  });

  it("gives only low-s signatures over 20 transfers, though the stand-in returned high-s ones", async function () {
    const signer = keys.signer(key.keyId, key.address);
    const { total, highS } = { ...kms.signatures };
    const parities = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const signed = await signer.signTransaction(await transfer(i % 2 === 0 ? 2 : 0));
      const { s, yParity } = parseTransaction(signed.raw as Hex);
      expect(BigInt(s!) <= HALF_N, `s of transfer ${i}`).to.equal(true);
      parities.add(yParity!);
      expect((await send(signed)).status).to.equal("success");
    }
    expect(kms.signatures.total - total).to.equal(20);
    expect(kms.signatures.highS - highS, "high-s signatures the stand-in returned").to.be.greaterThan(0);
    expect([...parities].sort(), "recovery ids found").to.deep.equal([0, 1]);
  });

  it("gives a clear error for a key the stand-in does not know", async function () {
    const unknown = "arn:aws:kms:us-east-1:111122223333:key/00000000-0000-4000-8000-000000000000";
    await expectKeyError(keys.signer(unknown, key.address).signTransaction(await transfer(2)), "not-found", unknown, "NotFoundException");
    await expectKeyError(keys.addressOf(unknown), "not-found", unknown, "KMS knows no such key");
  });

  it("refuses a key that is not ECC_SECG_P256K1, a key that does not sign for the address, and a replayable legacy transaction", async function () {
    const client = new KMSClient({ region: kms.region, endpoint: kms.endpoint, credentials: CREDENTIALS });
    try {
      const { KeyMetadata } = await client.send(new CreateKeyCommand({ KeySpec: "ECC_NIST_P256", KeyUsage: "SIGN_VERIFY" }));
      const p256 = KeyMetadata!.Arn!;
      await expectKeyError(keys.addressOf(p256), "wrong-key-spec", p256, "ECC_NIST_P256", "needs ECC_SECG_P256K1");
      await expectKeyError(keys.signer(p256, key.address).signTransaction(await transfer(2)), "wrong-address", p256, key.address);
    } finally {
      client.destroy();
    }
    // A legacy transaction without a chain id (valid on every chain) is refused before KMS is asked.
    const asked = kms.requests.length;
    const replayable = await rejection(keys.signer(key.keyId, key.address).signTransaction({ ...(await transfer(0)), chainId: undefined }));
    expect((replayable as Error).message).to.include("legacy ones with a chain id, not type 0");
    expect(kms.requests.length).to.equal(asked);

    const other = await keys.createKey();
    await expectKeyError(keys.signer(other.keyId, key.address).signTransaction(await transfer(2)), "wrong-address", other.keyId);
  });

  it("tells a refusal of the key (access denied) from KMS failing to answer (throttled, its fault, unreachable)", async function () {
    const signer = keys.signer(key.keyId, key.address);
    const tx = await transfer(2);
    kms.failWith({ type: "AccessDeniedException", status: 400, message: "User is not authorized to perform: kms:Sign" });
    await expectKeyError(signer.signTransaction(tx), "access-denied", key.keyId, "not authorized to perform: kms:Sign");

    // The SDK tries a throttled or failed call 3 times before giving up; the messages quote no key id or endpoint.
    for (const [type, status, said] of [
      ["ThrottlingException", 400, "throttled"],
      ["KMSInternalException", 500, "KMSInternalException"],
    ] as const) {
      kms.failWith({ type, status });
      const asked = kms.requests.length;
      const error = await expectServiceError(signer.signTransaction(tx), ErrorCode.UPSTREAM_UNAVAILABLE, undefined);
      expect(error.message).to.equal(`AWS KMS failed to answer (${said === "throttled" ? "throttled: too many requests" : said})`);
      expect(kms.requests.length - asked, `attempts on ${type}`).to.equal(3);
    }

    const unreachable = awsKmsKeys({ region: kms.region, endpoint: `http://127.0.0.1:${await closedPort()}`, credentials: CREDENTIALS });
    try {
      const error = await expectServiceError(unreachable.addressOf(key.keyId), ErrorCode.UPSTREAM_UNAVAILABLE, undefined);
      expect(error.message).to.equal("AWS KMS failed to answer (ECONNREFUSED)");
    } finally {
      unreachable.close();
    }
  });

  it("the loopback KMS stand-in refuses MessageType RAW, as a signer must send the transaction's hash as a DIGEST", async function () {
    const client = new KMSClient({ region: kms.region, endpoint: kms.endpoint, credentials: CREDENTIALS });
    try {
      const error = await rejection(
        client.send(
          new SignCommand({ KeyId: key.keyId, Message: new Uint8Array(32), MessageType: "RAW", SigningAlgorithm: "ECDSA_SHA_256" }),
        ),
      );
      expect(error).to.include({ name: "ValidationException" });
      expect((error as Error).message).to.include("MessageType DIGEST");
      expect((error as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode).to.equal(400);
    } finally {
      client.destroy();
    }
  });
});
