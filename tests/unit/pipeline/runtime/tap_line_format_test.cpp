// A tap's JSON line: point, table, op, rows by column name, sensitive values hidden.
#include "pipeline/runtime/tap_line_format.h"

#include <catch2/catch.hpp>

using namespace cdcd;

namespace {

const TableId kUsers = TableId::of("app", "users");

Schema users() {
    return SchemaBuilder()
        .column("id", DataType::bigint())
        .column("name", DataType::string())
        .column("password", DataType::string())
        .build();
}

Row user(std::int64_t id, const std::string& name, const std::string& password) {
    RowBuilder b(3);
    b.set_long(0, id).set_string(1, name).set_string(2, password);
    return std::move(b).build();
}

SensitiveColumns passwords() {
    return *SensitiveColumns::parse({"*.password"}, nullptr);
}

}  // namespace

TEST_CASE("a tap line shows an update's rows with sensitive values as ***") {
    Schema schema = users();
    Event update(DataChangeEvent::update(kUsers, user(1, "a\"b", "s3cret"), user(1, "c", "n3w")));
    std::string line = format_tap_line(TapPoint::Transform, update, &schema, passwords());
    CHECK(line == R"({"point":"transform","table":"app.users","op":"update",)"
                  R"("before":{"id":1,"name":"a\"b","password":"***"},)"
                  R"("after":{"id":1,"name":"c","password":"***"}})"
                  "\n");
    CHECK(line.find("s3cret") == std::string::npos);
}

TEST_CASE("a tap line names the sink writer, deletes show the row before") {
    Schema schema = users();
    Event del(DataChangeEvent::remove(kUsers, user(2, "x", "pw")));
    CHECK(format_tap_line(TapPoint::Sink, del, &schema, SensitiveColumns(), 3) ==
          R"({"point":"sink","writer":3,"table":"app.users","op":"delete",)"
          R"("before":{"id":2,"name":"x","password":"pw"}})"
          "\n");
}

TEST_CASE("a tap line shows a schema change as Flink CDC prints it") {
    Event create(CreateTableEvent{kUsers, users()});
    std::string line = format_tap_line(TapPoint::Source, create, nullptr, passwords());
    CHECK(line.starts_with(
        R"({"point":"source","table":"app.users","op":"schema-change","change":"CreateTableEvent{)"));
    CHECK(line.ends_with("}\n"));
}
