import { expect } from "chai";
import type { HDNodeWallet } from "ethers";
import { parseAbi, type Address, type Hash } from "viem";

import { ZERO, eventsOf, revertOf, startConformance, type Conformance } from "../../helpers/conformance.js";
import { deployTestToken } from "../../helpers/test-tokens.js";

// EIP conformance, ERC-721 (issue 31): the clauses of EIP-721 and its metadata and enumeration extensions, each test
// naming the one it checks, run on anvil against the ERC721s a launch deploys — the historic ServiceERC721 (no
// `options`), the variant with every option (enumerable, uriStorage, royalty, burnable, pausable; roles) and the bare
// variant (`{ access: "ownable" }`). Ids are minted through the service's HTTP API; transfers and approvals are sent by
// anvil's default accounts with ethers; owners, approvals, interface claims and events are read back with viem.
// Receivers: a contract with no hook, one answering a wrong value, and one logging what its hook was given.

const ERC721 = [
  "function balanceOf(address owner) view returns (uint256)",
  "function ownerOf(uint256 tokenId) view returns (address)",
  "function getApproved(uint256 tokenId) view returns (address)",
  "function isApprovedForAll(address owner, address operator) view returns (bool)",
  "function approve(address approved, uint256 tokenId)",
  "function setApprovalForAll(address operator, bool approved)",
  "function transferFrom(address from, address to, uint256 tokenId)",
  "function safeTransferFrom(address from, address to, uint256 tokenId)",
  "function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)",
  "function tokenURI(uint256 tokenId) view returns (string)",
  "function supportsInterface(bytes4 interfaceId) view returns (bool)",
  "function totalSupply() view returns (uint256)",
  "function tokenByIndex(uint256 index) view returns (uint256)",
  "function tokenOfOwnerByIndex(address owner, uint256 index) view returns (uint256)",
  "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
  "event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)",
  "event ApprovalForAll(address indexed owner, address indexed operator, bool approved)",
  "event Received721(address operator, address from, uint256 tokenId, bytes data, address ownerSeen)",
  "error ERC721NonexistentToken(uint256 tokenId)",
  "error ERC721InvalidOwner(address owner)",
  "error ERC721InvalidReceiver(address receiver)",
  "error ERC721InvalidApprover(address approver)",
  "error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)",
  "error ERC721InsufficientApproval(address operator, uint256 tokenId)",
  "error ERC721OutOfBoundsIndex(address owner, uint256 index)",
] as const;
const abi = parseAbi(ERC721);
const SAFE_WITH_DATA = "safeTransferFrom(address,address,uint256,bytes)";
const SAFE_WITHOUT_DATA = "safeTransferFrom(address,address,uint256)";

describe("EIP conformance on anvil: ERC-721", function () {
  this.timeout(180_000);
  let run: Conformance;
  let noReceiver: Address;
  let wrongAnswer: Address;
  let recorder: Address;

  before(async function () {
    run = await startConformance();
    const deployer = run.wallet(9);
    noReceiver = (await (await deployTestToken("TestNoReceiver", deployer)).getAddress()) as Address;
    wrongAnswer = (await (await deployTestToken("TestWrongAnswerReceiver", deployer)).getAddress()) as Address;
    recorder = (await (await deployTestToken("TestRecordingReceiver", deployer)).getAddress()) as Address;
  });

  after(async function () {
    await run?.stop();
  });

  const variants: Array<{ label: string; token: Record<string, unknown>; enumerable: boolean }> = [
    { label: "historic ServiceERC721 (no options)", token: {}, enumerable: true },
    {
      label: "every option, roles",
      token: {
        options: {
          enumerable: true,
          uriStorage: true,
          royalty: { receiver: "0x000000000000000000000000000000000000dEaD", basisPoints: 250 },
          burnable: true,
          pausable: true,
          access: "roles",
        },
      },
      enumerable: true,
    },
    { label: "no option, ownable", token: { options: { access: "ownable" } }, enumerable: false },
  ];

  for (const { label, token: extra, enumerable } of variants) {
    describe(label, function () {
      let token: Address;
      let owner: HDNodeWallet;
      let approved: HDNodeWallet;
      let operator: HDNodeWallet;
      let stranger: HDNodeWallet;

      before(async function () {
        [owner, approved, operator, stranger] = [run.wallet(1), run.wallet(2), run.wallet(3), run.wallet(4)];
        token = await run.launch("ERC721", { name: "Conformance", symbol: "CNF", uri: "ipfs://cnf/", ...extra });
        for (const id of ["1", "2", "3", "4", "5", "6"]) await run.mint("ERC721", token, { to: owner.address, tokenId: id });
      });

      const read = {
        owner: (id: bigint) => run.viem.readContract({ address: token, abi, functionName: "ownerOf", args: [id] }),
        approved: (id: bigint) => run.viem.readContract({ address: token, abi, functionName: "getApproved", args: [id] }),
        supports: (id: `0x${string}`) => run.viem.readContract({ address: token, abi, functionName: "supportsInterface", args: [id] }),
      };
      const simulate = (from: HDNodeWallet, functionName: "transferFrom" | "approve" | "safeTransferFrom", args: readonly unknown[]) =>
        run.viem.simulateContract({ address: token, abi, functionName, args, account: from.address as Address } as never);

      it("a mint is a Transfer event from 0x0 (Transfer emits when ownership changes by any mechanism)", async function () {
        const minted = await run.mint("ERC721", token, { to: stranger.address, tokenId: "40" });
        const receipt = await run.viem.getTransactionReceipt({ hash: minted.transactionHash as Hash });
        expect(eventsOf(abi, receipt, token)).to.deep.include({
          eventName: "Transfer",
          args: { from: ZERO, to: stranger.address, tokenId: 40n },
        });
        expect(await read.owner(40n)).to.equal(stranger.address);
      });

      it("ownerOf, getApproved and tokenURI throw for an id that is not a valid NFT", async function () {
        for (const functionName of ["ownerOf", "getApproved", "tokenURI"] as const) {
          const refused = await revertOf(run.viem.readContract({ address: token, abi, functionName, args: [999n] }));
          expect(refused, functionName).to.deep.equal({ errorName: "ERC721NonexistentToken", args: [999n] });
        }
      });

      it("balanceOf throws for queries about the zero address", async function () {
        const refused = await revertOf(run.viem.readContract({ address: token, abi, functionName: "balanceOf", args: [ZERO] }));
        expect(refused).to.deep.equal({ errorName: "ERC721InvalidOwner", args: [ZERO] });
      });

      it("approve: emits Approval, getApproved returns the approved address, and only the owner or an operator may approve", async function () {
        const receipt = await run.send(owner, token, ERC721, "approve", [approved.address, 1n]);
        expect(eventsOf(abi, receipt, token)).to.deep.equal([
          { eventName: "Approval", args: { owner: owner.address, approved: approved.address, tokenId: 1n } },
        ]);
        expect(await read.approved(1n)).to.equal(approved.address);
        const refused = await revertOf(simulate(stranger, "approve", [stranger.address, 2n]));
        expect(refused).to.deep.equal({ errorName: "ERC721InvalidApprover", args: [stranger.address] });
      });

      it("transferFrom by the approved address: emits Transfer, and the approved address is reset to none", async function () {
        await run.send(owner, token, ERC721, "approve", [approved.address, 2n]);
        const receipt = await run.send(approved, token, ERC721, "transferFrom", [owner.address, stranger.address, 2n]);
        expect(eventsOf(abi, receipt, token).filter((event) => event.eventName === "Transfer")).to.deep.equal([
          { eventName: "Transfer", args: { from: owner.address, to: stranger.address, tokenId: 2n } },
        ]);
        expect(await read.owner(2n)).to.equal(stranger.address);
        expect(await read.approved(2n), "approval cleared by the transfer").to.equal(ZERO);
      });

      it("setApprovalForAll: emits ApprovalForAll; the operator may transfer and approve; revoking stops it", async function () {
        const granted = await run.send(owner, token, ERC721, "setApprovalForAll", [operator.address, true]);
        expect(eventsOf(abi, granted, token)).to.deep.equal([
          { eventName: "ApprovalForAll", args: { owner: owner.address, operator: operator.address, approved: true } },
        ]);
        expect(
          await run.viem.readContract({
            address: token,
            abi,
            functionName: "isApprovedForAll",
            args: [owner.address as Address, operator.address as Address],
          }),
        ).to.equal(true);
        await run.send(operator, token, ERC721, "approve", [approved.address, 3n]);
        expect(await read.approved(3n), "an operator may approve").to.equal(approved.address);
        await run.send(operator, token, ERC721, "transferFrom", [owner.address, operator.address, 3n]);
        expect(await read.owner(3n)).to.equal(operator.address);
        const revoked = await run.send(owner, token, ERC721, "setApprovalForAll", [operator.address, false]);
        expect(eventsOf(abi, revoked, token)).to.deep.equal([
          { eventName: "ApprovalForAll", args: { owner: owner.address, operator: operator.address, approved: false } },
        ]);
        const refused = await revertOf(simulate(operator, "transferFrom", [owner.address, operator.address, 4n]));
        expect(refused).to.deep.equal({ errorName: "ERC721InsufficientApproval", args: [operator.address, 4n] });
      });

      it("transferFrom throws unless the caller is authorized, _from is the owner, _to is not zero and the id is valid", async function () {
        const cases: Array<[string, HDNodeWallet, readonly unknown[], { errorName: string; args: unknown[] }]> = [
          [
            "unauthorized caller",
            stranger,
            [owner.address, stranger.address, 4n],
            { errorName: "ERC721InsufficientApproval", args: [stranger.address, 4n] },
          ],
          [
            "_from not the owner",
            owner,
            [stranger.address, owner.address, 4n],
            { errorName: "ERC721IncorrectOwner", args: [stranger.address, 4n, owner.address] },
          ],
          ["_to the zero address", owner, [owner.address, ZERO, 4n], { errorName: "ERC721InvalidReceiver", args: [ZERO] }],
          ["an invalid id", owner, [owner.address, stranger.address, 999n], { errorName: "ERC721NonexistentToken", args: [999n] }],
        ];
        for (const [what, from, args, expected] of cases)
          expect(await revertOf(simulate(from, "transferFrom", args)), what).to.deep.equal(expected);
        expect(await read.owner(4n)).to.equal(owner.address);
      });

      it("safeTransferFrom throws when _to is a contract without onERC721Received, or one answering other than its magic value", async function () {
        for (const [what, to] of [
          ["no hook", noReceiver],
          ["a wrong answer", wrongAnswer],
        ] as const) {
          for (const args of [
            [owner.address, to, 4n],
            [owner.address, to, 4n, "0x01"],
          ]) {
            expect(await revertOf(simulate(owner, "safeTransferFrom", args)), `${what}, ${args.length} arguments`).to.deep.equal({
              errorName: "ERC721InvalidReceiver",
              args: [to],
            });
          }
        }
        expect(await read.owner(4n)).to.equal(owner.address);
      });

      it("safeTransferFrom calls onERC721Received(operator, from, tokenId, data) once the transfer is complete, data unaltered", async function () {
        await run.send(owner, token, ERC721, "setApprovalForAll", [operator.address, true]);
        const withData = await run.send(operator, token, ERC721, SAFE_WITH_DATA, [owner.address, recorder, 4n, "0xc0ffee"]);
        expect(eventsOf(abi, withData, recorder)).to.deep.equal([
          {
            eventName: "Received721",
            args: { operator: operator.address, from: owner.address, tokenId: 4n, data: "0xc0ffee", ownerSeen: recorder },
          },
        ]);
        const withoutData = await run.send(owner, token, ERC721, SAFE_WITHOUT_DATA, [owner.address, recorder, 5n]);
        expect(eventsOf(abi, withoutData, recorder)).to.deep.equal([
          {
            eventName: "Received721",
            args: { operator: owner.address, from: owner.address, tokenId: 5n, data: "0x", ownerSeen: recorder },
          },
        ]);
        expect(await read.owner(4n)).to.equal(recorder);
        await run.send(owner, token, ERC721, "setApprovalForAll", [operator.address, false]);
      });

      it("supportsInterface: ERC-721 (0x80ac58cd) and metadata (0x5b5e139f); enumeration (0x780e9d63) exactly when enumerable", async function () {
        expect(await read.supports("0x80ac58cd")).to.equal(true);
        expect(await read.supports("0x5b5e139f")).to.equal(true);
        expect(await read.supports("0x780e9d63")).to.equal(enumerable);
      });

      if (enumerable) {
        it("enumeration: totalSupply counts the valid NFTs, tokenByIndex and tokenOfOwnerByIndex list them and throw past the end", async function () {
          const supply = await run.viem.readContract({ address: token, abi, functionName: "totalSupply" });
          const all = [];
          for (let index = 0n; index < supply; index++)
            all.push(await run.viem.readContract({ address: token, abi, functionName: "tokenByIndex", args: [index] }));
          expect(all.map(Number).sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 40]);
          expect(
            await revertOf(run.viem.readContract({ address: token, abi, functionName: "tokenByIndex", args: [supply] })),
          ).to.deep.equal({
            errorName: "ERC721OutOfBoundsIndex",
            args: [ZERO, supply],
          });
          const balance = await run.viem.readContract({ address: token, abi, functionName: "balanceOf", args: [owner.address as Address] });
          const owned = [];
          for (let index = 0n; index < balance; index++) {
            owned.push(
              await run.viem.readContract({
                address: token,
                abi,
                functionName: "tokenOfOwnerByIndex",
                args: [owner.address as Address, index],
              }),
            );
          }
          for (const id of owned) expect(await read.owner(id)).to.equal(owner.address);
          expect(owned.map(Number).sort((a, b) => a - b)).to.deep.equal([1, 6]);
          expect(
            await revertOf(
              run.viem.readContract({
                address: token,
                abi,
                functionName: "tokenOfOwnerByIndex",
                args: [owner.address as Address, balance],
              }),
            ),
          ).to.deep.equal({ errorName: "ERC721OutOfBoundsIndex", args: [owner.address, balance] });
        });
      }
    });
  }
});
