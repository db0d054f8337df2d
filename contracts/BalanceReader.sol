// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Never deployed: its creation code runs in one `eth_call` (no `to`), reads a holder's native balance and,
/// for every token, its code size and the raw answers of balanceOf(holder), symbol() and decimals(), and returns
/// them from the constructor. One node call reads any number of tokens, on any node that runs `eth_call`.
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

    constructor(address holder, address[] memory tokens, bool withMetadata) {
        TokenRead[] memory reads = new TokenRead[](tokens.length);
        for (uint256 i = 0; i < tokens.length; i++) {
            address token = tokens[i];
            TokenRead memory read = reads[i];
            read.codeSize = token.code.length;
            if (read.codeSize == 0) continue;
            (read.balanceOk, read.balance) = token.staticcall(abi.encodeWithSelector(0x70a08231, holder));
            if (!withMetadata) continue;
            (read.symbolOk, read.symbol) = token.staticcall(abi.encodeWithSelector(0x95d89b41));
            (read.decimalsOk, read.decimals) = token.staticcall(abi.encodeWithSelector(0x313ce567));
        }
        bytes memory result = abi.encode(holder.balance, reads);
        assembly {
            return(add(result, 32), mload(result))
        }
    }
}
