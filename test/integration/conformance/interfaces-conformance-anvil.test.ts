import { expect } from "chai";
import { parseAbi, type Address, type Hash } from "viem";

import { eventsOf, startConformance, type Conformance } from "../../helpers/conformance.js";
import { deployTestToken } from "../../helpers/test-tokens.js";

// EIP conformance, the interface EIPs (issue 31): ERC-165 (supportsInterface answers true for 0x01ffc9a7 and false for
// 0xffffffff, within 30,000 gas: asked the way the EIP's own detection does it, by a contract that STATICCALLs with
// that much gas), ERC-2981 (royaltyInfo is salePrice × basis points / 10000 to the launch's receiver, and
// supportsInterface 0x2a55205a) and ERC-4906 (supportsInterface 0x49064906, MetadataUpdate when a token's URI is set —
// the service sets one when it mints with `uri`). Run on anvil against every kind a launch deploys that implements
// ERC-165; a variant launched without an option must not claim that option's interface. Read back with viem.

const ABI = parseAbi([
  "function supportsInterface(bytes4 interfaceId) view returns (bool)",
  "function royaltyInfo(uint256 tokenId, uint256 salePrice) view returns (address receiver, uint256 royaltyAmount)",
  "function tokenURI(uint256 tokenId) view returns (string)",
  "function probe(address target, bytes4 interfaceId) view returns (bool success, bool supported, uint256 gasUsed)",
  "event MetadataUpdate(uint256 tokenId)",
  "event BatchMetadataUpdate(uint256 fromTokenId, uint256 toTokenId)",
]);
const ROYALTY_RECEIVER = "0x000000000000000000000000000000000000dEaD" as Address;

interface Launched {
  label: string;
  address: Address;
  royaltyBps?: bigint;
  uriStorage?: boolean;
}

describe("EIP conformance on anvil: ERC-165, ERC-2981, ERC-4906", function () {
  this.timeout(180_000);
  let run: Conformance;
  let probe: Address;
  const launched: Launched[] = [];

  before(async function () {
    run = await startConformance();
    probe = (await (await deployTestToken("TestERC165Probe", run.wallet(9))).getAddress()) as Address;
    const launches: Array<[Omit<Launched, "address">, "ERC20" | "ERC721" | "ERC1155", Record<string, unknown>]> = [
      [{ label: "historic ServiceERC20 (AccessControl)" }, "ERC20", { name: "Coin", symbol: "CN", initialSupply: "1" }],
      [
        { label: "ERC20 every option, roles" },
        "ERC20",
        {
          name: "Coin",
          symbol: "CN",
          totalSupply: "10",
          options: { burnable: true, pausable: true, permit: true, capped: true, mintable: true, votes: true },
        },
      ],
      [{ label: "historic ServiceERC721" }, "ERC721", { name: "Art", symbol: "ART", uri: "ipfs://art/" }],
      [
        { label: "ERC721 no option, ownable" },
        "ERC721",
        { name: "Art", symbol: "ART", uri: "ipfs://art/", options: { access: "ownable" } },
      ],
      [
        { label: "ERC721 uriStorage, royalty 250 bps", royaltyBps: 250n, uriStorage: true },
        "ERC721",
        {
          name: "Art",
          symbol: "ART",
          uri: "ipfs://art/",
          options: { uriStorage: true, royalty: { receiver: ROYALTY_RECEIVER, basisPoints: 250 } },
        },
      ],
      [
        { label: "ERC721 every option, ownable, royalty 10000 bps", royaltyBps: 10000n, uriStorage: true },
        "ERC721",
        {
          name: "Art",
          symbol: "ART",
          options: {
            enumerable: true,
            uriStorage: true,
            burnable: true,
            pausable: true,
            access: "ownable",
            royalty: { receiver: ROYALTY_RECEIVER, basisPoints: 10000 },
          },
        },
      ],
      [{ label: "ERC1155 bare" }, "ERC1155", { name: "Items", uri: "https://example.com/{id}.json", options: {} }],
      [
        { label: "ERC1155 every option, royalty 333 bps", royaltyBps: 333n },
        "ERC1155",
        {
          name: "Items",
          uri: "https://example.com/{id}.json",
          options: { burnable: true, pausable: true, supply: true, royalty: { receiver: ROYALTY_RECEIVER, basisPoints: 333 } },
        },
      ],
    ];
    for (const [meta, type, token] of launches) launched.push({ ...meta, address: await run.launch(type, token) });
  });

  after(async function () {
    await run?.stop();
  });

  const supports = (address: Address, id: `0x${string}`) =>
    run.viem.readContract({ address, abi: ABI, functionName: "supportsInterface", args: [id] });

  it("ERC-165: supportsInterface(0x01ffc9a7) is true and (0xffffffff) false, each answered within 30,000 gas", async function () {
    for (const { label, address } of launched) {
      const [success, supported, gasUsed] = await run.viem.readContract({
        address: probe,
        abi: ABI,
        functionName: "probe",
        args: [address, "0x01ffc9a7"],
      });
      expect([success, supported], `${label}: 0x01ffc9a7 through a 30,000-gas STATICCALL`).to.deep.equal([true, true]);
      expect(gasUsed < 30_000n, `${label}: ${gasUsed} gas`).to.equal(true);
      const [invalidSuccess, invalidSupported] = await run.viem.readContract({
        address: probe,
        abi: ABI,
        functionName: "probe",
        args: [address, "0xffffffff"],
      });
      expect([invalidSuccess, invalidSupported], `${label}: 0xffffffff through a 30,000-gas STATICCALL`).to.deep.equal([true, false]);
    }
  });

  it("ERC-165: the probe tells a contract that cannot answer from one that says false (no supportsInterface fails the call)", async function () {
    const [success] = await run.viem.readContract({ address: probe, abi: ABI, functionName: "probe", args: [probe, "0x01ffc9a7"] });
    expect(success, "the probe itself has no supportsInterface").to.equal(false);
  });

  it("ERC-2981: supportsInterface(0x2a55205a) exactly when launched with royalty", async function () {
    for (const { label, address, royaltyBps } of launched) {
      expect(await supports(address, "0x2a55205a"), label).to.equal(royaltyBps !== undefined);
    }
  });

  it("ERC-2981: royaltyInfo(tokenId, salePrice) is (receiver, salePrice × basis points / 10000) for any price and id", async function () {
    const prices = [0n, 1n, 39n, 10_000n, 12_345n, 10n ** 18n, 2n ** 200n];
    for (const { label, address, royaltyBps } of launched) {
      if (royaltyBps === undefined) continue;
      for (const salePrice of prices) {
        for (const tokenId of [1n, 77n]) {
          const [receiver, amount] = await run.viem.readContract({
            address,
            abi: ABI,
            functionName: "royaltyInfo",
            args: [tokenId, salePrice],
          });
          expect([receiver, amount], `${label}: id ${tokenId}, price ${salePrice}`).to.deep.equal([
            ROYALTY_RECEIVER,
            (salePrice * royaltyBps) / 10_000n,
          ]);
        }
      }
    }
  });

  it("ERC-4906: supportsInterface(0x49064906) exactly for the ERC721s launched with uriStorage", async function () {
    for (const { label, address, uriStorage } of launched) {
      expect(await supports(address, "0x49064906"), label).to.equal(uriStorage === true);
    }
  });

  it("ERC-4906: setting a token's URI (a mint with `uri` through the service) emits MetadataUpdate for that id", async function () {
    for (const { label, address, uriStorage } of launched) {
      if (uriStorage !== true) continue;
      const minted = await run.mint("ERC721", address, { to: run.wallet(1).address, tokenId: "12", uri: "twelve.json" });
      const receipt = await run.viem.getTransactionReceipt({ hash: minted.transactionHash as Hash });
      expect(eventsOf(ABI, receipt, address), label).to.deep.equal([{ eventName: "MetadataUpdate", args: { tokenId: 12n } }]);
      const uri = await run.viem.readContract({ address, abi: ABI, functionName: "tokenURI", args: [12n] });
      expect(uri.endsWith("twelve.json"), `${label}: ${uri}`).to.equal(true);
    }
  });
});
