import { expect } from "chai";
import { Contract, JsonRpcProvider, Wallet } from "ethers";
import { createPublicClient, http, parseAbi } from "viem";

import { ANVIL_ACCOUNT, startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";
import { deployTestToken } from "../../helpers/test-tokens.js";

// EIP-1155's receiver hooks, to the letter (issue 31; docs/tokens.md#erc1155): a batch —
// `safeBatchTransferFrom` or the collection's `mintBatch` — asks its receiver for onERC1155BatchReceived whatever its
// length, and a single transfer or mint asks for onERC1155Received. OpenZeppelin 5 asks a batch of one id for the single
// hook, so a receiver implementing only the batch hook refused it. Checked on anvil against receivers that answer only
// one of the two selectors, for the bare collection and the one with every option; balances read back with viem.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const KEY = { sender: ANVIL_ACCOUNT.address, privateKey: ANVIL_ACCOUNT.privateKey };
const ERC1155_ABI = [
  "function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)",
  "function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)",
  "error ERC1155InvalidReceiver(address receiver)",
];

describe("ERC-1155 receiver hooks on anvil: a batch of one id asks for the batch hook", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let api: RunningServer;
  let owner: Wallet;
  let singleOnly: string;
  let batchOnly: string;

  before(async function () {
    node = await startAnvil();
    api = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url } });
    owner = new Wallet(
      ANVIL_ACCOUNT.privateKey,
      new JsonRpcProvider(node.url, undefined, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 }),
    );
    singleOnly = await (await deployTestToken("TestSingleHookReceiver", owner)).getAddress();
    batchOnly = await (await deployTestToken("TestBatchHookReceiver", owner)).getAddress();
  });

  after(async function () {
    await api?.stop();
    await node?.stop();
  });

  const variants: Array<[string, Record<string, unknown>]> = [
    ["the bare collection", {}],
    [
      "every option, roles",
      {
        burnable: true,
        pausable: true,
        supply: true,
        royalty: { receiver: ANVIL_ACCOUNT.address, basisPoints: 250 },
        access: "roles",
      },
    ],
  ];

  for (const [label, options] of variants) {
    it(`${label}: mints and transfers reach each receiver through the hook it implements, and only that one`, async function () {
      const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
        ...SEPOLIA,
        type: "ERC1155",
        token: { name: "Hooks", uri: "https://example.com/items/{id}.json", options },
        ...KEY,
      });
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      const items = launched.body.contractAddress as string;
      const mint = (to: string, tokenIds: string[], amounts: string[]) =>
        api.call("POST", "/api/v1/tokens/mint?wait=mined", {
          ...SEPOLIA,
          type: "ERC1155",
          contractAddress: items,
          to,
          tokenIds,
          amounts,
          ...KEY,
        });

      // mintBatch of one id: the batch hook.
      const toBatchOnly = await mint(batchOnly, ["5"], ["3"]);
      expect(toBatchOnly.status, JSON.stringify(toBatchOnly.body)).to.equal(200);
      const toSingleOnly = await mint(singleOnly, ["5"], ["3"]);
      expect(toSingleOnly.status, JSON.stringify(toSingleOnly.body)).to.equal(422);
      expect(toSingleOnly.body.error).to.deep.include({ code: "WOULD_REVERT" });
      expect(toSingleOnly.body.error.details).to.deep.include({ error: "ERC1155InvalidReceiver" });

      // The owner's own ids, then transfers with ethers straight to the node.
      expect((await mint(owner.address, ["1", "2"], ["10", "10"])).status).to.equal(200);
      const token = new Contract(items, ERC1155_ABI, owner);
      await (await token.getFunction("safeBatchTransferFrom")(owner.address, batchOnly, [1n], [4n], "0x")).wait();
      await (await token.getFunction("safeBatchTransferFrom")(owner.address, batchOnly, [1n, 2n], [1n, 2n], "0x")).wait();
      await (await token.getFunction("safeTransferFrom")(owner.address, singleOnly, 2n, 3n, "0x")).wait();
      for (const refused of [
        () => token.getFunction("safeBatchTransferFrom").staticCall(owner.address, singleOnly, [1n], [1n], "0x"),
        () => token.getFunction("safeTransferFrom").staticCall(owner.address, batchOnly, 1n, 1n, "0x"),
      ]) {
        const error = await refused().then(
          () => undefined,
          (thrown: unknown) => thrown as { revert?: { name?: string } },
        );
        expect(error?.revert?.name, "a receiver without the hook a transfer asks for refuses it").to.equal("ERC1155InvalidReceiver");
      }

      // Read back by a client no one here wrote.
      const viem = createPublicClient({ transport: http(node.url) });
      const balanceOf = parseAbi(["function balanceOf(address account, uint256 id) view returns (uint256)"]);
      const balance = (account: string, id: bigint) =>
        viem.readContract({
          address: items as `0x${string}`,
          abi: balanceOf,
          functionName: "balanceOf",
          args: [account as `0x${string}`, id],
        });
      expect(await balance(batchOnly, 5n)).to.equal(3n);
      expect(await balance(batchOnly, 1n)).to.equal(5n);
      expect(await balance(batchOnly, 2n)).to.equal(2n);
      expect(await balance(singleOnly, 2n)).to.equal(3n);
      expect(await balance(singleOnly, 5n)).to.equal(0n);
      expect(await balance(owner.address, 1n)).to.equal(5n);
      expect(await balance(owner.address, 2n)).to.equal(5n);
    });
  }
});
