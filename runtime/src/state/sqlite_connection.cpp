#include "allot/sqlite_connection.h"

namespace allot::runtime {

std::string Statement::text(int column) const {
  const unsigned char* value = sqlite3_column_text(statement_, column);
  return value == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(value));
}

Expected<std::unique_ptr<SqliteConnection>, std::string> SqliteConnection::open(const std::string& path) {
  sqlite3* db = nullptr;
  const int status = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (status != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(status);
    sqlite3_close_v2(db);
    return unexpected(std::move(message));
  }
  return std::unique_ptr<SqliteConnection>(new SqliteConnection(db));
}

std::optional<std::string> SqliteConnection::execute(const char* sql) const {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) == SQLITE_OK) return std::nullopt;
  std::string message = error != nullptr ? error : last_error();
  sqlite3_free(error);
  return message;
}

Expected<Statement, std::string> SqliteConnection::prepare(const char* sql) const {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) != SQLITE_OK) return unexpected(last_error());
  return Statement(statement);
}

Expected<std::int64_t, std::string> SqliteConnection::query_integer(const char* sql) const {
  auto statement = prepare(sql);
  if (!statement) return unexpected(statement.error());
  if (sqlite3_step(statement->get()) != SQLITE_ROW) return unexpected(last_error());
  return static_cast<std::int64_t>(sqlite3_column_int64(statement->get(), 0));
}

Expected<std::string, std::string> SqliteConnection::query_text(const char* sql) const {
  auto statement = prepare(sql);
  if (!statement) return unexpected(statement.error());
  if (sqlite3_step(statement->get()) != SQLITE_ROW) return unexpected(last_error());
  return statement->text(0);
}

}  // namespace allot::runtime
