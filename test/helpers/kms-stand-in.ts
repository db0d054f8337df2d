import { generateKeyPairSync, randomInt, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

import { p256 } from "@noble/curves/p256.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";

/**
 * A loopback KMS stand-in: the part of AWS KMS the service's KMS signer uses (CreateKey, GetPublicKey, Sign), served on
 * 127.0.0.1 over the real KMS wire protocol, so that the real `@aws-sdk/client-kms` client talks to it unchanged. It is
 * not AWS KMS: the one stand-in these tests allow themselves, as nothing else that speaks KMS runs on this machine.
 *
 * The protocol (AWS JSON 1.1): `POST /`, the operation in `X-Amz-Target: TrentService.<Operation>`, `Content-Type:
 * application/x-amz-json-1.1`, JSON bodies with binary fields as base64; errors are HTTP 400 (500 for KMS's own faults)
 * with `{"__type": "<Exception>", "message": ...}`. The SigV4 `Authorization` header is accepted without being checked.
 *
 * Keys are kept in memory, made by node:crypto: secp256k1 (ECC_SECG_P256K1) and, to try a key of the wrong kind,
 * P-256 (ECC_NIST_P256). As real KMS does, it signs a digest with ECDSA and answers the DER signature without
 * normalising s; here about half the signatures are deliberately given with s above n/2 (counted in `signatures`), so
 * that a signer that forgets EIP-2's low-s rule fails. It refuses `MessageType: RAW` (real KMS would hash the message
 * itself first: a signer sending an Ethereum hash as RAW would sign the wrong thing), and keeps no log.
 */
export interface KmsStandIn {
  /** http://127.0.0.1:<port>, for the client's `endpoint`. */
  endpoint: string;
  region: string;
  /** Sign answers given, and how many of them had s above n/2. */
  readonly signatures: { total: number; highS: number };
  /** Each request's operation and whether it came signed (SigV4), oldest first. */
  readonly requests: Array<{ operation: string; sigV4: boolean }>;
  /** The uncompressed public point (0x04 ‖ x ‖ y, hex) of a key it holds, as node:crypto made it. */
  publicPoint(keyId: string): string;
  /** Answers every request with this KMS error from now on (undefined: answer normally again). */
  failWith(error: { type: string; status: number; message?: string } | undefined): void;
  close(): Promise<void>;
}

type KeySpec = "ECC_SECG_P256K1" | "ECC_NIST_P256";

interface StandInKey {
  id: string;
  arn: string;
  spec: KeySpec;
  /** DER SubjectPublicKeyInfo. */
  spki: Buffer;
  point: Buffer;
  /** The private scalar; never leaves the stand-in. */
  secret: Uint8Array;
  createdAt: number;
}

const ACCOUNT = "111122223333";
const CURVES = { ECC_SECG_P256K1: { nodeName: "secp256k1", noble: secp256k1 }, ECC_NIST_P256: { nodeName: "prime256v1", noble: p256 } };

/** A KMS error answer: `status` with the exception's name as `__type`. */
class KmsFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export async function startKmsStandIn(options: { region?: string } = {}): Promise<KmsStandIn> {
  const region = options.region ?? "us-east-1";
  const keys = new Map<string, StandInKey>();
  const signatures = { total: 0, highS: 0 };
  const requests: KmsStandIn["requests"] = [];
  let failure: { type: string; status: number; message?: string } | undefined;

  /** A key by id or ARN, as KMS resolves KeyId (aliases are not kept here). */
  const keyOf = (keyId: unknown): StandInKey => {
    const id = typeof keyId === "string" ? keyId.replace(new RegExp(`^arn:aws:kms:${region}:${ACCOUNT}:key/`), "") : "";
    const key = keys.get(id);
    if (key === undefined) throw new KmsFault("NotFoundException", `Key '${String(keyId)}' does not exist`);
    return key;
  };

  const createKey = (body: Record<string, unknown>) => {
    const spec = body.KeySpec ?? body.CustomerMasterKeySpec ?? "SYMMETRIC_DEFAULT";
    if (spec !== "ECC_SECG_P256K1" && spec !== "ECC_NIST_P256")
      throw new KmsFault(
        "UnsupportedOperationException",
        `the KMS stand-in makes ECC_SECG_P256K1 and ECC_NIST_P256 keys only, not ${String(spec)}`,
      );
    if (body.KeyUsage !== "SIGN_VERIFY")
      throw new KmsFault("ValidationException", `KeyUsage ${String(body.KeyUsage)} is not valid for ${spec}`);
    const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: CURVES[spec].nodeName });
    const jwk = publicKey.export({ format: "jwk" });
    const id = randomUUID();
    const key: StandInKey = {
      id,
      arn: `arn:aws:kms:${region}:${ACCOUNT}:key/${id}`,
      spec,
      spki: publicKey.export({ type: "spki", format: "der" }),
      point: Buffer.concat([Buffer.of(4), Buffer.from(jwk.x!, "base64url"), Buffer.from(jwk.y!, "base64url")]),
      secret: Buffer.from(privateKey.export({ format: "jwk" }).d!, "base64url"),
      createdAt: Date.now() / 1000,
    };
    keys.set(id, key);
    return {
      KeyMetadata: {
        AWSAccountId: ACCOUNT,
        KeyId: key.id,
        Arn: key.arn,
        CreationDate: key.createdAt,
        Enabled: true,
        Description: typeof body.Description === "string" ? body.Description : "",
        KeyUsage: "SIGN_VERIFY",
        KeyState: "Enabled",
        Origin: "AWS_KMS",
        KeyManager: "CUSTOMER",
        CustomerMasterKeySpec: spec,
        KeySpec: spec,
        SigningAlgorithms: ["ECDSA_SHA_256"],
        MultiRegion: false,
      },
    };
  };

  const getPublicKey = (body: Record<string, unknown>) => {
    const key = keyOf(body.KeyId);
    return {
      KeyId: key.arn,
      PublicKey: key.spki.toString("base64"),
      CustomerMasterKeySpec: key.spec,
      KeySpec: key.spec,
      KeyUsage: "SIGN_VERIFY",
      SigningAlgorithms: ["ECDSA_SHA_256"],
    };
  };

  const sign = (body: Record<string, unknown>) => {
    const key = keyOf(body.KeyId);
    const messageType = body.MessageType ?? "RAW";
    if (messageType !== "DIGEST")
      throw new KmsFault("ValidationException", `the KMS stand-in signs digests only (MessageType DIGEST), not ${String(messageType)}`);
    if (body.SigningAlgorithm !== "ECDSA_SHA_256")
      throw new KmsFault("InvalidKeyUsageException", `${String(body.SigningAlgorithm)} is not a signing algorithm of ${key.spec} keys`);
    const digest = Buffer.from(typeof body.Message === "string" ? body.Message : "", "base64");
    if (digest.length !== 32) throw new KmsFault("ValidationException", `a DIGEST for ECDSA_SHA_256 is 32 bytes, not ${digest.length}`);
    const curve = CURVES[key.spec].noble;
    const lowS = curve.sign(digest, key.secret, { lowS: true });
    // KMS leaves s as it comes: here, on a coin toss, its high twin n − s (an equally valid ECDSA signature).
    const highS = randomInt(2) === 1;
    const signature = highS ? new curve.Signature(lowS.r, curve.CURVE.n - lowS.s) : lowS;
    signatures.total += 1;
    if (highS) signatures.highS += 1;
    return { KeyId: key.arn, Signature: Buffer.from(signature.toDERRawBytes()).toString("base64"), SigningAlgorithm: "ECDSA_SHA_256" };
  };

  const operations: Record<string, (body: Record<string, unknown>) => unknown> = {
    CreateKey: createKey,
    GetPublicKey: getPublicKey,
    Sign: sign,
  };

  const answer = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { "Content-Type": "application/x-amz-json-1.1", "x-amzn-RequestId": randomUUID() });
    response.end(JSON.stringify(body));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const target = String(request.headers["x-amz-target"] ?? "");
    const operation = target.startsWith("TrentService.") ? target.slice("TrentService.".length) : "";
    requests.push({ operation, sigV4: String(request.headers.authorization ?? "").startsWith("AWS4-HMAC-SHA256 ") });
    try {
      if (failure !== undefined)
        throw new KmsFault(failure.type, failure.message ?? `${failure.type} (the KMS stand-in was told to fail)`, failure.status);
      if (request.method !== "POST" || request.url !== "/") throw new KmsFault("UnknownOperationException", "POST / only");
      if (!String(request.headers["content-type"] ?? "").startsWith("application/x-amz-json-1.1"))
        throw new KmsFault("SerializationException", "Content-Type must be application/x-amz-json-1.1");
      const run = operations[operation];
      if (run === undefined)
        throw new KmsFault("UnknownOperationException", `the KMS stand-in does not do ${target || "(no X-Amz-Target)"}`);
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        throw new KmsFault("SerializationException", "the body is not JSON");
      }
      answer(response, 200, run(body as Record<string, unknown>));
    } catch (error) {
      if (!(error instanceof KmsFault)) throw error;
      answer(response, error.status, { __type: error.type, message: error.message });
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => answer(response, 500, { __type: "KMSInternalException", message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    region,
    signatures,
    requests,
    publicPoint: (keyId) => `0x${keyOf(keyId).point.toString("hex")}`,
    failWith: (error) => void (failure = error),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
