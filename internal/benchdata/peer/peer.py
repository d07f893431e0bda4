#!/usr/bin/env python3
"""The naive peer Dormouse's benchmarks race: the seed article's memory class
(a new SQLite connection per call, LIKE search, "context" as the matching
rows joined into a string) served over HTTP with the standard library only.
It commits on Dormouse's durability terms (WAL, synchronous=FULL: one sync
of the WAL a commit, safe from a power cut): with Python's defaults (a
rollback journal) each commit waits for several fsyncs, and the race would
measure the disk, not the code.

    python3 peer.py DB_PATH    # prints "listening on 127.0.0.1:PORT"

POST /memories  {"content": ..., "session_id": ...} or {"memories": [...]}
POST /recall    {"query": ..., "limit": 10}  -> {"memories": [...]}
POST /context   {"query": ...}               -> {"context": "..."}
"""
import json
import sqlite3
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Memory:
    def __init__(self, path):
        self.path = path
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("""CREATE TABLE IF NOT EXISTS memories (
                id INTEGER PRIMARY KEY, session_id TEXT, content TEXT, ts REAL)""")

    def _connect(self):
        db = sqlite3.connect(self.path, timeout=30)
        db.execute("PRAGMA synchronous=FULL")
        return db

    def add(self, items):
        db = self._connect()
        try:
            with db:
                ids = [db.execute("INSERT INTO memories (session_id, content, ts) VALUES (?, ?, ?)",
                                  (m.get("session_id", ""), m["content"], time.time())).lastrowid
                       for m in items]
        finally:
            db.close()
        return ids

    def recall(self, query, limit=10):
        words = query.split()
        if not words:
            return []
        where = " OR ".join("content LIKE ?" for _ in words)
        db = self._connect()
        try:
            rows = db.execute("SELECT id, session_id, content, ts FROM memories WHERE " + where +
                              " ORDER BY ts DESC LIMIT ?", [f"%{w}%" for w in words] + [limit]).fetchall()
        finally:
            db.close()
        return [{"id": r[0], "session_id": r[1], "content": r[2], "ts": r[3]} for r in rows]

    def context(self, query):
        return "\n".join("- " + m["content"] for m in self.recall(query))


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64  # eight clients connect at once


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the Go clients expect

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        mem = self.server.memory
        if self.path == "/memories":
            ids = mem.add(body["memories"] if "memories" in body else [body])
            self.reply(201, {"ids": ids})
        elif self.path == "/recall":
            self.reply(200, {"memories": mem.recall(body.get("query", ""), body.get("limit", 10))})
        elif self.path == "/context":
            self.reply(200, {"context": mem.context(body.get("query", ""))})
        else:
            self.reply(404, {"error": "not found"})

    def reply(self, status, obj):
        out = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.memory = Memory(sys.argv[1])
    print("listening on 127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
