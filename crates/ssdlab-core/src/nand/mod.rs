//! nand
