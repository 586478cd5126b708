//! ftl
