//go:build bindings

package main

// bindingsOnly: this binary was built by `wails generate module` (or the
// bindings step of `wails build` / `wails dev`), which runs it once to list
// the bound methods. It must start nothing: no host, no daemon, no window.
const bindingsOnly = true
