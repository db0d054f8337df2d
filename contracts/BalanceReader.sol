// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Never deployed: its creation code runs in one `eth_call` (no `to`), reads a holder's native balance and,
/// for every token, its code size and balanceOf(holder) (and, when asked, the raw answers of symbol() and decimals()),
/// and returns them from the constructor. One node call reads any number of tokens, on any node that runs `eth_call`.
/// A call that reverts (or an address without code) is reported, never propagated: the caller decides what it means.
contract BalanceReader {
    struct TokenRead {
        uint256 codeSize;
        bool balanceOk;
        bytes balance;
        bool symbolOk;
        bytes symbol;
        bool decimalsOk;
        bytes decimals;
    }

    /// @dev Without metadata the answer is packed, two words a token after the holder's balance: flags (1: has code,
    /// 2: balanceOf answered at least one word) and the balance. A caller decodes it by slicing, not by an ABI decoder.
    constructor(address holder, address[] memory tokens, bool withMetadata) {
        bytes memory result = withMetadata ? withMetadataAnswer(holder, tokens) : packedBalances(holder, tokens);
        assembly {
            return(add(result, 32), mload(result))
        }
    }

    function packedBalances(address holder, address[] memory tokens) private view returns (bytes memory result) {
        result = new bytes(32 + tokens.length * 64);
        uint256 holderBalance = holder.balance;
        assembly {
            mstore(add(result, 32), holderBalance)
        }
        for (uint256 i = 0; i < tokens.length; i++) {
            address token = tokens[i];
            uint256 flags;
            uint256 amount;
            if (token.code.length > 0) {
                flags = 1;
                (bool ok, bytes memory answer) = token.staticcall(abi.encodeWithSelector(0x70a08231, holder));
                if (ok && answer.length >= 32) {
                    flags |= 2;
                    assembly {
                        amount := mload(add(answer, 32))
                    }
                }
            }
            uint256 offset = 64 + i * 64;
            assembly {
                mstore(add(result, offset), flags)
                mstore(add(result, add(offset, 32)), amount)
            }
        }
    }

    function withMetadataAnswer(address holder, address[] memory tokens) private view returns (bytes memory) {
        TokenRead[] memory reads = new TokenRead[](tokens.length);
        for (uint256 i = 0; i < tokens.length; i++) {
            address token = tokens[i];
            TokenRead memory read = reads[i];
            read.codeSize = token.code.length;
            if (read.codeSize == 0) continue;
            (read.balanceOk, read.balance) = token.staticcall(abi.encodeWithSelector(0x70a08231, holder));
            (read.symbolOk, read.symbol) = token.staticcall(abi.encodeWithSelector(0x95d89b41));
            (read.decimalsOk, read.decimals) = token.staticcall(abi.encodeWithSelector(0x313ce567));
        }
        return abi.encode(holder.balance, reads);
    }
}
