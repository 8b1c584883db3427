// The client socket server; see ServerState.swift.
