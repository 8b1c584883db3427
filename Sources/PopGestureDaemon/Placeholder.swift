// The daemon; see Daemon.swift.
