import { expect } from "chai";
import { generateKeyPairSync, randomBytes } from "node:crypto";

import { secp256k1 } from "@noble/curves/secp256k1.js";
import { Wallet, hexlify, recoverAddress } from "ethers";

import { addressFromSpki, ethereumSignature, secp256k1PointFromSpki } from "../../src/chains/signers/kms-signature.js";

// What a KMS answers, read as Ethereum takes it: no KMS here, the DER is made by node:crypto and @noble/curves.

/** The first of anvil's default accounts, and its public key as DER SubjectPublicKeyInfo (made by node:crypto from the point). */
const ANVIL_ACCOUNT = {
  address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  spki:
    "3056301006072a8648ce3d020106052b8104000a03420004" +
    "8318535b54105d4a7aae60c08fc45f9687181b4fdfc625bd1a753fa7397fed753547f11ca8696646f2f3acb08e31016afac23e630c5d11f59f61fef57b0d2aa5",
};

const HALF_N = secp256k1.CURVE.n / 2n;

describe("a KMS public key (DER SubjectPublicKeyInfo) as an Ethereum address", function () {
  it("reads anvil's first account's public key as its address", function () {
    const der = Buffer.from(ANVIL_ACCOUNT.spki, "hex");
    expect(addressFromSpki(der)).to.equal(ANVIL_ACCOUNT.address);
    expect(hexlify(secp256k1PointFromSpki(der))).to.equal(new Wallet(ANVIL_ACCOUNT.privateKey).signingKey.publicKey);
  });

  it("reads keys node:crypto makes as the address their private key derives", function () {
    for (let i = 0; i < 5; i++) {
      const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "secp256k1" });
      const secret = `0x${Buffer.from(privateKey.export({ format: "jwk" }).d!, "base64url").toString("hex")}`;
      expect(addressFromSpki(publicKey.export({ type: "spki", format: "der" }))).to.equal(new Wallet(secret).address);
    }
  });

  it("refuses a key on another curve, another kind of key, and bytes that are no key", function () {
    const p256 = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).publicKey.export({ type: "spki", format: "der" });
    expect(() => addressFromSpki(p256)).to.throw("not a secp256k1 public key (ec prime256v1)");
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ type: "spki", format: "der" });
    expect(() => addressFromSpki(rsa)).to.throw("not a secp256k1 public key (rsa)");
    expect(() => addressFromSpki(randomBytes(88))).to.throw("not a DER SubjectPublicKeyInfo public key");
  });
});

describe("a KMS DER signature as Ethereum's (r, s, yParity): low-s, and the recovery id found by trial", function () {
  const wallet = new Wallet(ANVIL_ACCOUNT.privateKey);
  const secret = Buffer.from(ANVIL_ACCOUNT.privateKey.slice(2), "hex");

  /** A signature of a random digest, as KMS might give it: the low-s one, and its high-s twin (n − s). */
  function kmsLike() {
    const digest = hexlify(randomBytes(32));
    const low = secp256k1.sign(digest.slice(2), secret, { lowS: true });
    const high = new secp256k1.Signature(low.r, secp256k1.CURVE.n - low.s);
    return { digest, low, high };
  }

  it("takes a low-s signature as it is, with the yParity that recovers the signer", function () {
    for (let i = 0; i < 20; i++) {
      const { digest, low } = kmsLike();
      const signature = ethereumSignature(low.toDERRawBytes(), digest, wallet.address)!;
      expect(signature).to.deep.equal({
        r: `0x${low.r.toString(16).padStart(64, "0")}`,
        s: `0x${low.s.toString(16).padStart(64, "0")}`,
        yParity: low.recovery,
      });
      expect(recoverAddress(digest, signature)).to.equal(wallet.address);
    }
  });

  it("turns a high-s signature into its low-s twin (s ≤ n/2) and finds its recovery id, both parities seen", function () {
    const parities = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const { digest, low, high } = kmsLike();
      expect(high.hasHighS()).to.equal(true);
      const signature = ethereumSignature(high.toDERRawBytes(), digest, wallet.address)!;
      expect(BigInt(signature.s) <= HALF_N).to.equal(true);
      expect(BigInt(signature.s)).to.equal(low.s);
      expect(signature.yParity).to.equal(low.recovery);
      expect(recoverAddress(digest, signature)).to.equal(wallet.address);
      // ethers, signing the same digest with the key itself, agrees byte for byte (both use RFC 6979).
      expect(wallet.signingKey.sign(digest)).to.include({ r: signature.r, s: signature.s, yParity: signature.yParity });
      parities.add(signature.yParity);
    }
    expect([...parities].sort()).to.deep.equal([0, 1]);
  });

  it("answers undefined for a signature by another key, of another digest, or bytes that are no DER signature", function () {
    const { digest, high } = kmsLike();
    expect(ethereumSignature(high.toDERRawBytes(), digest, Wallet.createRandom().address)).to.equal(undefined);
    expect(ethereumSignature(high.toDERRawBytes(), hexlify(randomBytes(32)), wallet.address)).to.equal(undefined);
    expect(ethereumSignature(high.toCompactRawBytes(), digest, wallet.address)).to.equal(undefined);
    expect(ethereumSignature(new Uint8Array(0), digest, wallet.address)).to.equal(undefined);
  });
});
