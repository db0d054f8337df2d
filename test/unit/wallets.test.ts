import { expect } from "chai";
import { Wallet as EthersWallet, getAddress, isHexString } from "ethers";
import { address as bitcoinAddress, initEccLib, networks, payments, type Network } from "bitcoinjs-lib";
import { ECPairFactory } from "ecpair";
import * as ecc from "tiny-secp256k1";

import { createWallet } from "../../src/core/wallets.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { expectServiceError } from "../helpers/errors.js";

const ECPair = ECPairFactory(ecc);
initEccLib(ecc);

const EVM_PAIRS: Array<{ chain: string; network: string; resolved: string }> = [
  { chain: "ethereum", network: "mainnet", resolved: "mainnet" },
  { chain: "ethereum", network: "sepolia", resolved: "sepolia" },
  { chain: "ethereum", network: "holesky", resolved: "holesky" },
  { chain: "ethereum", network: "hoodi", resolved: "hoodi" },
  { chain: "ethereum", network: "rinkeby", resolved: "rinkeby" },
  { chain: "ethereum", network: "testnet", resolved: "sepolia" },
  { chain: "binance_smart_chain", network: "mainnet", resolved: "mainnet" },
  { chain: "binance_smart_chain", network: "testnet", resolved: "testnet" },
];

/** Independent of the code under test: which bitcoinjs-lib parameters and address prefix each network must produce. */
const BITCOIN_NETWORKS: Array<{
  network: string;
  params: Network;
  otherParams: Network;
  segwitPrefix: string;
  legacyPrefixes: string[];
  wifPrefixes: string[];
}> = [
  {
    network: "mainnet",
    params: networks.bitcoin,
    otherParams: networks.testnet,
    segwitPrefix: "bc1",
    legacyPrefixes: ["1"],
    wifPrefixes: ["K", "L"],
  },
  {
    network: "testnet",
    params: networks.testnet,
    otherParams: networks.bitcoin,
    segwitPrefix: "tb1",
    legacyPrefixes: ["m", "n"],
    wifPrefixes: ["c"],
  },
  {
    network: "signet",
    params: networks.testnet,
    otherParams: networks.regtest,
    segwitPrefix: "tb1",
    legacyPrefixes: ["m", "n"],
    wifPrefixes: ["c"],
  },
  {
    network: "regtest",
    params: networks.regtest,
    otherParams: networks.bitcoin,
    segwitPrefix: "bcrt1",
    legacyPrefixes: ["m", "n"],
    wifPrefixes: ["c"],
  },
];

function addressOfWif(wif: string, params: Network, addressType: string): string | undefined {
  const pubkey = ECPair.fromWIF(wif, params).publicKey;
  if (addressType === "p2pkh") return payments.p2pkh({ pubkey, network: params }).address;
  if (addressType === "p2tr") return payments.p2tr({ internalPubkey: pubkey.subarray(1, 33), network: params }).address;
  return payments.p2wpkh({ pubkey, network: params }).address;
}

describe("wallets", function () {
  describe("EVM chains", function () {
    for (const { chain, network, resolved } of EVM_PAIRS) {
      it(`${chain}/${network}: a checksummed address and a 32-byte hex key that derives it`, function () {
        const wallet = createWallet({ chain, network });
        expect(wallet.chain).to.equal(chain);
        expect(wallet.network).to.equal(resolved);
        expect(wallet.addressType).to.equal(undefined);
        expect(getAddress(wallet.address)).to.equal(wallet.address);
        expect(wallet.address).to.match(/^0x[0-9a-fA-F]{40}$/);
        expect(isHexString(wallet.privateKey, 32), "0x-prefixed 32-byte hex").to.equal(true);
        expect(new EthersWallet(wallet.privateKey).address).to.equal(wallet.address);
      });
    }

    it("never repeats a key or an address", function () {
      const wallets = Array.from({ length: 200 }, () => createWallet({ chain: "ethereum", network: "mainnet" }));
      expect(new Set(wallets.map((wallet) => wallet.privateKey)).size).to.equal(200);
      expect(new Set(wallets.map((wallet) => wallet.address)).size).to.equal(200);
    });

    it("refuses a bitcoin address type on an EVM chain", async function () {
      await expectServiceError(
        () => createWallet({ chain: "ethereum", network: "mainnet", addressType: "p2tr" }),
        ErrorCode.INVALID_ARGUMENT,
        "addressType",
      );
    });
  });

  describe("bitcoin", function () {
    for (const { network, params, otherParams, segwitPrefix, legacyPrefixes, wifPrefixes } of BITCOIN_NETWORKS) {
      it(`${network}: native SegWit (P2WPKH) by default, refused on another network, and the WIF derives it`, function () {
        const wallet = createWallet({ chain: "bitcoin", network });
        expect(wallet).to.include({ chain: "bitcoin", network, addressType: "p2wpkh" });
        expect(wallet.address.startsWith(`${segwitPrefix}q`), wallet.address).to.equal(true);
        const script = bitcoinAddress.toOutputScript(wallet.address, params);
        expect(script.length, "OP_0 <20-byte key hash>").to.equal(22);
        expect(() => bitcoinAddress.toOutputScript(wallet.address, otherParams)).to.throw();
        expect(wifPrefixes).to.include(wallet.privateKey[0]);
        expect(addressOfWif(wallet.privateKey, params, "p2wpkh")).to.equal(wallet.address);
      });

      it(`${network}: p2tr (taproot) on request`, function () {
        const wallet = createWallet({ chain: "bitcoin", network, addressType: "p2tr" });
        expect(wallet.addressType).to.equal("p2tr");
        expect(wallet.address.startsWith(`${segwitPrefix}p`), wallet.address).to.equal(true);
        expect(bitcoinAddress.toOutputScript(wallet.address, params).length, "OP_1 <32-byte key>").to.equal(34);
        expect(addressOfWif(wallet.privateKey, params, "p2tr")).to.equal(wallet.address);
      });

      it(`${network}: p2pkh (legacy) on request, in any case`, function () {
        const wallet = createWallet({ chain: "bitcoin", network, addressType: "P2PKH" });
        expect(wallet.addressType).to.equal("p2pkh");
        expect(legacyPrefixes).to.include(wallet.address[0]);
        expect(bitcoinAddress.toOutputScript(wallet.address, params).length, "P2PKH script").to.equal(25);
        expect(addressOfWif(wallet.privateKey, params, "p2pkh")).to.equal(wallet.address);
      });
    }

    it("never repeats a key or an address", function () {
      const wallets = Array.from({ length: 200 }, () => createWallet({ chain: "bitcoin", network: "testnet" }));
      expect(new Set(wallets.map((wallet) => wallet.privateKey)).size).to.equal(200);
      expect(new Set(wallets.map((wallet) => wallet.address)).size).to.equal(200);
    });
  });

  describe("typed errors", function () {
    it("an unknown chain is UNSUPPORTED_CHAIN and lists the chains", async function () {
      const error = await expectServiceError(
        () => createWallet({ chain: "solana", network: "mainnet" }),
        ErrorCode.UNSUPPORTED_CHAIN,
        "chain",
      );
      expect(error.details?.allowed).to.deep.equal([
        "ethereum",
        "binance_smart_chain",
        "base",
        "arbitrum",
        "optimism",
        "polygon",
        "avalanche",
        "bitcoin",
      ]);
      expect(error.message).to.include("ethereum, binance_smart_chain, base, arbitrum, optimism, polygon, avalanche, bitcoin");
    });

    it("a missing chain or network is INVALID_ARGUMENT naming it", async function () {
      await expectServiceError(() => createWallet({ chain: "", network: "mainnet" }), ErrorCode.INVALID_ARGUMENT, "chain");
      await expectServiceError(() => createWallet({ chain: "bitcoin", network: "" }), ErrorCode.INVALID_ARGUMENT, "network");
    });

    it("an unknown network is UNSUPPORTED_NETWORK and lists that chain's networks", async function () {
      const error = await expectServiceError(
        () => createWallet({ chain: "ethereum", network: "goerli" }),
        ErrorCode.UNSUPPORTED_NETWORK,
        "network",
      );
      expect(error.details?.allowed).to.include.members(["mainnet", "sepolia", "holesky", "hoodi", "rinkeby", "testnet"]);
      const bsc = await expectServiceError(
        () => createWallet({ chain: "binance_smart_chain", network: "sepolia" }),
        ErrorCode.UNSUPPORTED_NETWORK,
        "network",
      );
      expect(bsc.details?.allowed).to.deep.equal(["mainnet", "testnet"]);
      await expectServiceError(() => createWallet({ chain: "bitcoin", network: "sepolia" }), ErrorCode.UNSUPPORTED_NETWORK, "network");
    });

    it("an unknown bitcoin address type is INVALID_ARGUMENT naming addressType", async function () {
      const error = await expectServiceError(
        () => createWallet({ chain: "bitcoin", network: "mainnet", addressType: "p2sh" }),
        ErrorCode.INVALID_ARGUMENT,
        "addressType",
      );
      expect(error.message).to.include("p2wpkh, p2tr, p2pkh");
    });
  });
});
