import { Interface, type LogDescription } from "ethers";

// The token transfers a log records, read with ethers' ABI decoder: ERC-20 and ERC-721 `Transfer` (told apart by
// where the amount or id is: ERC-721 indexes its token id, a fourth topic), and ERC-1155 `TransferSingle` and
// `TransferBatch` (one movement per id). A log that has a transfer's topic but not its layout (any contract may emit
// one) records none: it is skipped, not guessed at.

/** A log as a block's receipts (or eth_getLogs) give it. */
export interface ChainLog {
  address: string;
  topics: readonly string[];
  data: string;
  transactionHash: string;
  logIndex: number;
}

/** A movement of a token, as one transfer log records it. */
export interface TokenMovement {
  asset: "erc20" | "erc721" | "erc1155";
  contract: string;
  from: string;
  to: string;
  /** ERC-20 and ERC-1155: how much, in the token's smallest units (decimal). */
  amount: string | null;
  /** ERC-721 and ERC-1155: which token id (decimal). */
  tokenId: string | null;
  /** An ERC-1155 batch's position of the id; null for every other log. */
  batchIndex: number | null;
}

const TRANSFER = new Interface([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
  "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
]);
const NFT_TRANSFER = new Interface(["event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)"]);

/** The topics of the three transfer events: what an `eth_getLogs` filter for token activity asks for. */
export const TRANSFER_TOPICS = {
  transfer: TRANSFER.getEvent("Transfer")!.topicHash,
  transferSingle: TRANSFER.getEvent("TransferSingle")!.topicHash,
  transferBatch: TRANSFER.getEvent("TransferBatch")!.topicHash,
} as const;

/** The token movements a log records; none when it is no transfer, or is one in name only. */
export function movementsOf(log: ChainLog): TokenMovement[] {
  const topic = log.topics[0]?.toLowerCase();
  const contract = log.address;
  try {
    if (topic === TRANSFER_TOPICS.transfer) {
      if (log.topics.length === 4 && log.data === "0x") {
        const { from, to, tokenId } = parse(NFT_TRANSFER, log).args;
        return [{ asset: "erc721", contract, from, to, amount: null, tokenId: tokenId.toString(), batchIndex: null }];
      }
      if (log.topics.length !== 3) return [];
      const { from, to, value } = parse(TRANSFER, log).args;
      return [{ asset: "erc20", contract, from, to, amount: value.toString(), tokenId: null, batchIndex: null }];
    }
    if (topic === TRANSFER_TOPICS.transferSingle && log.topics.length === 4) {
      const { from, to, id, value } = parse(TRANSFER, log).args;
      return [{ asset: "erc1155", contract, from, to, amount: value.toString(), tokenId: id.toString(), batchIndex: null }];
    }
    if (topic === TRANSFER_TOPICS.transferBatch && log.topics.length === 4) {
      // By position: `values` is also a method of ethers' Result.
      const args = parse(TRANSFER, log).args;
      const [from, to] = [args[1] as string, args[2] as string];
      const idList = [...(args[3] as bigint[])];
      const valueList = [...(args[4] as bigint[])];
      if (idList.length !== valueList.length) return [];
      return idList.map((tokenId, batchIndex) => ({
        asset: "erc1155" as const,
        contract,
        from,
        to,
        amount: valueList[batchIndex]!.toString(),
        tokenId: tokenId.toString(),
        batchIndex,
      }));
    }
  } catch {
    // The topic of a transfer over data that is not one: no movement.
  }
  return [];
}

function parse(abi: Interface, log: ChainLog): LogDescription {
  const parsed = abi.parseLog({ topics: [...log.topics], data: log.data });
  if (parsed === null) throw new Error("not this event");
  return parsed;
}
