// The lextrace extension: starts `lextrace lsp` (the command of the setting
// `lextrace.server.command`) for .lex files and talks to it over stdio.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const configured = vscode.workspace
    .getConfiguration("lextrace")
    .get("server.command", ["lextrace", "lsp"]);
  const [command, ...args] = configured.length ? configured : ["lextrace", "lsp"];
  const serverOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "lextrace" },
      { scheme: "untitled", language: "lextrace" },
    ],
  };
  client = new LanguageClient("lextrace", "lextrace", serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
