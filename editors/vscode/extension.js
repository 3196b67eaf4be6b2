// Starts `spgen lsp` for .spd files; the server does the work (docs/editor.md).
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const cfg = vscode.workspace.getConfiguration("spd.server");
  const [command, ...args] = cfg.get("command", ["spgen", "lsp"]);
  const serverOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "spd" },
      { scheme: "untitled", language: "spd" },
    ],
    initializationOptions: {
      checkBudgetMs: cfg.get("checkBudgetMs", 50),
      debounceMs: cfg.get("debounceMs", 300),
    },
  };
  client = new LanguageClient("spd", "SPD language server (spgen)", serverOptions, clientOptions);
  client.start();
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
