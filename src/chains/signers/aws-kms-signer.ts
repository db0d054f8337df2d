import { CreateKeyCommand, GetPublicKeyCommand, KMSClient, SignCommand } from "@aws-sdk/client-kms";
import { Signature, Transaction, getAddress, getBytes, type TransactionLike } from "ethers";

import type { TransactionSigner } from "../evm/write/send-types.js";
import { AwsKmsKeyError, awsKmsError } from "./aws-kms-errors.js";
import { addressFromSpki, ethereumSignature } from "./kms-signature.js";

/** Where the service's AWS KMS keys are, and who it is there. Read by `awsKmsKeys` only. */
export interface AwsKmsConfig {
  region: string;
  /** Another endpoint than the region's public one: a VPC interface endpoint, or a stand-in in tests. */
  endpoint?: string;
  /** Fixed credentials; without them the SDK's default chain (environment, shared files, SSO, container or instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Ethereum keys are secp256k1; KMS calls that curve ECC_SECG_P256K1 and signs with it only as ECDSA over SHA-256. */
const KEY_SPEC = "ECC_SECG_P256K1";
const KEY_USAGE = "SIGN_VERIFY";
const SIGNING_ALGORITHM = "ECDSA_SHA_256";

// A send signs inside its sender's lock: a KMS that does not answer must fail that send in bounded time rather than
// hold every later send of the sender. The SDK still retries throttled and failed calls (3 attempts) within these.
const CONNECTION_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;

/** The service's keys in AWS KMS, with a client configured from `config` (its only reader). */
export function awsKmsKeys(config: AwsKmsConfig): AwsKmsKeys {
  const client = new KMSClient({
    region: config.region,
    ...(config.endpoint !== undefined ? { endpoint: config.endpoint } : {}),
    ...(config.credentials !== undefined ? { credentials: config.credentials } : {}),
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
  });
  return new AwsKmsKeys(client);
}

/**
 * Held wallets whose keys are in AWS KMS: it makes them, reads their addresses and signs with them. The private keys
 * never leave KMS; the service keeps a key's id (its ARN) and address.
 */
export class AwsKmsKeys {
  constructor(private readonly client: KMSClient) {}

  /** A new secp256k1 signing key in KMS: its ARN (KMS takes it wherever a key id is asked) and its address. */
  async createKey(): Promise<{ keyId: string; address: string }> {
    let metadata;
    try {
      ({ KeyMetadata: metadata } = await this.client.send(
        new CreateKeyCommand({ KeySpec: KEY_SPEC, KeyUsage: KEY_USAGE, Description: "hardhat-token-service held wallet" }),
      ));
    } catch (error) {
      throw awsKmsError(error, "create", undefined);
    }
    const keyId = metadata?.Arn ?? metadata?.KeyId;
    if (keyId === undefined) throw new Error("AWS KMS answered CreateKey without the new key's id");
    return { keyId, address: await this.addressOf(keyId) };
  }

  /** The checksummed address of a KMS key, read from its public key; refuses a key that cannot sign for Ethereum. */
  async addressOf(keyId: string): Promise<string> {
    let answer;
    try {
      answer = await this.client.send(new GetPublicKeyCommand({ KeyId: keyId }));
    } catch (error) {
      throw awsKmsError(error, "give the public key of", keyId);
    }
    if (answer.KeySpec !== KEY_SPEC || answer.KeyUsage !== KEY_USAGE)
      throw new AwsKmsKeyError(
        "wrong-key-spec",
        keyId,
        `AWS KMS key ${keyId} is a ${answer.KeySpec ?? "?"} ${answer.KeyUsage ?? "?"} key: Ethereum needs ${KEY_SPEC} ${KEY_USAGE}`,
      );
    if (answer.PublicKey === undefined) throw new Error(`AWS KMS answered GetPublicKey for ${keyId} without the public key`);
    return addressFromSpki(answer.PublicKey);
  }

  /** The signer of a KMS key held for `address` (from `createKey` or `addressOf`); each signature is checked against it. */
  signer(keyId: string, address: string): TransactionSigner {
    const sender = getAddress(address);
    return {
      address: sender,
      kind: "aws-kms",
      signTransaction: (transaction) => this.signTransaction(keyId, sender, transaction),
    };
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }

  private async signTransaction(keyId: string, sender: string, transaction: TransactionLike): Promise<{ raw: string; hash: string }> {
    const tx = Transaction.from(transaction);
    // What the send path builds; a legacy transaction without a chain id could be replayed on every chain.
    if (!(tx.type === 2 || (tx.type === 0 && tx.chainId !== 0n)))
      throw new Error(`the aws-kms signer signs EIP-1559 transactions and legacy ones with a chain id, not type ${tx.type}`);
    const digest = tx.unsignedHash;
    let answer;
    try {
      answer = await this.client.send(
        new SignCommand({ KeyId: keyId, Message: getBytes(digest), MessageType: "DIGEST", SigningAlgorithm: SIGNING_ALGORITHM }),
      );
    } catch (error) {
      throw awsKmsError(error, "sign with", keyId);
    }
    if (answer.Signature === undefined) throw new Error(`AWS KMS answered Sign for ${keyId} without a signature`);
    const signature = ethereumSignature(answer.Signature, digest, sender);
    if (signature === undefined)
      throw new AwsKmsKeyError(
        "wrong-address",
        keyId,
        `AWS KMS key ${keyId} did not sign for ${sender}: its signature recovers another address (is it the key held for that wallet?)`,
      );
    tx.signature = Signature.from(signature);
    return { raw: tx.serialized, hash: tx.hash! };
  }
}
