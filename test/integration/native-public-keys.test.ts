import { expect } from "chai";
import { Wallet as EthersWallet, computeAddress, getAddress, hexlify, keccak256 } from "ethers";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import * as tiny from "tiny-secp256k1";
import hre from "hardhat";

import { createWallet } from "../../src/api.js";
import { bitcoinAddressOfWif } from "../../src/chains/bitcoin/wallet-keys.js";
import { addressOfPrivateKey } from "../../src/chains/evm/wallet-keys.js";
import {
  nativeCrypto,
  offerNativeCrypto,
  uncompressedPublicKey,
  withNativePublicKeys,
  type NativeCrypto,
} from "../../src/chains/crypto/public-keys.js";

const require = createRequire(import.meta.url);
const hardhatNative = () => require("hardhat/internal/native-crypto") as NativeCrypto;

/** The address of a key computed without any code under test: tiny-secp256k1's point and ethers' own JS keccak. */
function referenceAddress(privateKey: string): string {
  const point = tiny.pointFromScalar(Buffer.from(privateKey.slice(2), "hex"), false)!;
  return getAddress(
    hexlify(keccak256._(point.subarray(1)))
      .slice(-40)
      .padStart(42, "0x"),
  );
}

describe("native public keys (EDR's libsecp256k1 offered by the plugin)", function () {
  afterEach(() => offerNativeCrypto(hardhatNative));

  it("are in use once the Hardhat runtime exists: the plugin's hre hook offered them and they passed the check", async function () {
    expect(hre.config.tokenService).to.not.equal(undefined);
    expect(nativeCrypto()).to.not.equal(undefined);
  });

  it("derive the same addresses as tiny-secp256k1 with ethers' JS keccak, for 300 fresh EVM wallets", function () {
    for (let i = 0; i < 300; i++) {
      const wallet = createWallet({ chain: "ethereum", network: "mainnet" });
      expect(wallet.address).to.equal(referenceAddress(wallet.privateKey));
      expect(wallet.address).to.equal(new EthersWallet(wallet.privateKey).address);
    }
  });

  it("leave ethers' keccak256 as the host registered it, and hash wallet addresses natively without it", function () {
    let hostCalls = 0;
    // The host's choice, as hardhat-ethers makes it on a network's first connection: EDR's keccak (counted here).
    keccak256.register((data) => {
      hostCalls++;
      return hardhatNative().keccak256(data);
    });
    // Offered again, so the known-answer check runs again on the next key, as when a Hardhat runtime is created.
    offerNativeCrypto(hardhatNative);
    const wallets = Array.from({ length: 20 }, () => createWallet({ chain: "ethereum", network: "mainnet" }));
    expect(nativeCrypto()).to.not.equal(undefined);
    expect(hostCalls, "ethers' keccak256 was called for the service's own addresses").to.equal(0);
    keccak256("0x");
    expect(hostCalls, "the host's keccak256 is still the one ethers calls").to.equal(1);
    for (const wallet of wallets) expect(wallet.address).to.equal(referenceAddress(wallet.privateKey));
  });

  it("check a sender's key as ethers' computeAddress does, natively and without native code, and refuse keys off the curve", function () {
    const order = "0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";
    for (const native of [true, false]) {
      offerNativeCrypto(
        native
          ? hardhatNative
          : () => {
              throw new Error("no native code");
            },
      );
      expect(nativeCrypto() !== undefined).to.equal(native);
      for (let i = 0; i < 100; i++) {
        const privateKey = hexlify(randomBytes(32));
        expect(addressOfPrivateKey(privateKey)).to.equal(computeAddress(privateKey)).and.to.equal(referenceAddress(privateKey));
      }
      for (const invalid of [`0x${"00".repeat(32)}`, order]) expect(() => addressOfPrivateKey(invalid)).to.throw(RangeError);
    }
  });

  it("give bitcoin keys the points tiny-secp256k1 gives, compressed and not, and refuse out-of-range keys as it does", function () {
    const curve = withNativePublicKeys(tiny);
    for (let i = 0; i < 200; i++) {
      const key = randomBytes(32);
      expect(Buffer.from(curve.pointFromScalar(key)!)).to.deep.equal(Buffer.from(tiny.pointFromScalar(key)!));
      expect(Buffer.from(curve.pointFromScalar(key, false)!)).to.deep.equal(Buffer.from(tiny.pointFromScalar(key, false)!));
    }
    const order = Buffer.from("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", "hex");
    for (const invalid of [Buffer.alloc(32), order]) {
      expect(() => tiny.pointFromScalar(invalid)).to.throw("Expected Private");
      expect(() => curve.pointFromScalar(invalid)).to.throw("Expected Private");
    }
  });

  it("give bitcoin wallets the addresses their WIF keys control, for every address type", function () {
    for (const addressType of ["p2wpkh", "p2pkh", "p2tr"] as const) {
      for (let i = 0; i < 50; i++) {
        const wallet = createWallet({ chain: "bitcoin", network: "mainnet", addressType });
        expect(wallet.address).to.equal(bitcoinAddressOfWif(wallet.privateKey, "mainnet", addressType));
      }
    }
  });

  it("are refused when they derive a wrong key, and keys then come from tiny-secp256k1, still right", function () {
    offerNativeCrypto(() => ({ ...hardhatNative(), secp256k1PublicKeyFromSecretKey: () => new Uint8Array(65).fill(4) }));
    expect(nativeCrypto()).to.equal(undefined);
    const wallet = createWallet({ chain: "ethereum", network: "mainnet" });
    expect(wallet.address).to.equal(referenceAddress(wallet.privateKey));
  });

  it("are refused when they give a point for a key off the curve (0), and such a key is still refused", function () {
    offerNativeCrypto(() => ({
      ...hardhatNative(),
      secp256k1PublicKeyFromSecretKey: (key: Uint8Array) =>
        key.every((byte) => byte === 0) ? new Uint8Array(65).fill(4) : hardhatNative().secp256k1PublicKeyFromSecretKey(key),
    }));
    expect(nativeCrypto()).to.equal(undefined);
    expect(() => addressOfPrivateKey(`0x${"00".repeat(32)}`)).to.throw(RangeError);
  });

  it("are refused when they hash wrongly or fail to load, and keys still come out right", function () {
    offerNativeCrypto(() => ({ ...hardhatNative(), keccak256: () => new Uint8Array(32) }));
    expect(nativeCrypto()).to.equal(undefined);
    offerNativeCrypto(() => {
      throw new Error("no native module on this platform");
    });
    expect(nativeCrypto()).to.equal(undefined);
    const key = randomBytes(32);
    expect(Buffer.from(uncompressedPublicKey(key))).to.deep.equal(Buffer.from(tiny.pointFromScalar(key, false)!));
  });
});
