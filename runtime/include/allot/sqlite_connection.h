// A thin RAII layer over the SQLite C API: a connection and prepared
// statements that close themselves. Errors are returned as messages.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <sqlite3.h>

#include "allot/expected.h"

namespace allot::runtime {

// A prepared statement; finalized on destruction.
class Statement {
 public:
  explicit Statement(sqlite3_stmt* statement) : statement_(statement) {}
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(Statement&& other) noexcept : statement_(std::exchange(other.statement_, nullptr)) {}
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;

  // The raw handle, for binding and stepping.
  sqlite3_stmt* get() const { return statement_; }
  // Clears bindings and rewinds, ready to run again.
  void reset() const {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
  // The text of a result column ("" for NULL).
  std::string text(int column) const;

 private:
  sqlite3_stmt* statement_;
};

// An open database; closed on destruction.
class SqliteConnection {
 public:
  // Opens or creates the file.
  static Expected<std::unique_ptr<SqliteConnection>, std::string> open(const std::string& path);
  ~SqliteConnection() { sqlite3_close_v2(db_); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  // Runs SQL that returns no rows we need; the error message on failure.
  std::optional<std::string> execute(const char* sql) const;
  // Compiles one statement.
  Expected<Statement, std::string> prepare(const char* sql) const;
  // The first column of the first row of a query, as an integer.
  Expected<std::int64_t, std::string> query_integer(const char* sql) const;
  // The first column of the first row of a query, as text.
  Expected<std::string, std::string> query_text(const char* sql) const;
  // SQLite's message for the last failure on this connection.
  std::string last_error() const { return sqlite3_errmsg(db_); }
  // Rows changed by the last INSERT, UPDATE or DELETE.
  int changes() const { return sqlite3_changes(db_); }

 private:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

}  // namespace allot::runtime
