//! abws-sandbox: a local emulator of the whole service (placeholder until the sandbox lands).
