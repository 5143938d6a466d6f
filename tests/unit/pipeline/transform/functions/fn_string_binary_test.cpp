// OVERLAY / POSITION over BINARY and VARBINARY, byte for byte (Flink CDC's
// StringFunctions.overlay(byte[], ...) and position(byte[], ...), StringFunctions.java:298-364;
// specs/string.yaml:261), and FROM_BASE64_BINARY's type (string.yaml:245).
#include <catch2/catch.hpp>

#include "tests/unit/pipeline/transform/one_row_eval.h"

using namespace cdcd;
using namespace cdcd::transform;
using cdcd::transform::testing::eval_on_row;

namespace {

const Schema& schema() {
    static const Schema s = SchemaBuilder()
                                .column("bin", DataType::binary(640))
                                .column("vb", DataType::varbinary(640))
                                .column("vb_null", DataType::varbinary(640))
                                .column("s", DataType::string())
                                .column("s_nn", DataType::string().not_null())
                                .build();
    return s;
}

const Row& row() {
    static const Row r = [] {
        RowBuilder b(5);
        b.set_bytes(0, "Lorem ipsum").set_bytes(1, "dolor sit amet").set_string(3, "ZG9sb3I=");
        b.set_string(4, "ZG9sb3I=");
        return std::move(b).build();
    }();
    return r;
}

std::string b64(const std::string& text) {
    return eval_on_row("TO_BASE64(" + text + ")", schema(), row()).value;
}
std::string eval(const std::string& text) {
    return eval_on_row(text, schema(), row()).value;
}

}  // namespace

TEST_CASE("OVERLAY over bytes replaces bytes", "[fn_string_binary]") {
    // string.yaml:261: "L" + "dolor sit amet", then with FOR 3 the bytes after the 3 replaced.
    CHECK(b64("OVERLAY(bin PLACING vb FROM 2)") == "TGRvbG9yIHNpdCBhbWV0");
    CHECK(b64("OVERLAY(bin PLACING vb FROM 2 FOR 3)") == "TGRvbG9yIHNpdCBhbWV0bSBpcHN1bQ==");
    // A start outside 1..length keeps the bytes; a length <= 0 drops the rest (the byte[]
    // overload appends no suffix then).
    CHECK(b64("OVERLAY(bin PLACING vb FROM 0)") == b64("bin"));
    CHECK(b64("OVERLAY(bin PLACING vb FROM 12)") == b64("bin"));
    CHECK(b64("OVERLAY(bin PLACING vb FROM 11 FOR 0)") ==
          b64("CAST('Lorem ipsudolor sit amet' AS BYTES)"));
    CHECK(eval("OVERLAY(vb_null PLACING vb FROM 1)") == "null");
    CHECK(eval_on_row("OVERLAY(bin PLACING vb FROM 2)", schema(), row()).type == "BYTES");
}

TEST_CASE("POSITION over bytes counts bytes", "[fn_string_binary]") {
    CHECK(eval("POSITION(bin IN bin)") == "1");
    CHECK(eval("POSITION(bin IN bin FROM 2)") == "0");
    CHECK(eval("POSITION(CAST('sit' AS BYTES) IN vb)") == "7");
    CHECK(eval("POSITION(CAST('sit' AS BYTES) IN vb FROM 8)") == "0");
    CHECK(eval("POSITION(CAST('' AS BYTES) IN vb FROM 99)") == "1");
    CHECK(eval("POSITION(CAST('t' AS BYTES) IN vb FROM 15)") == "0");
    CHECK(eval("POSITION(vb_null IN vb)") == "null");
    CHECK(eval_on_row("POSITION(bin IN vb)", schema(), row()).type == "INT");
}

TEST_CASE("POSITION and OVERLAY do not mix bytes and text", "[fn_string_binary]") {
    CHECK_THROWS_WITH(eval("POSITION(s IN vb)"), Catch::Contains("Cannot apply 'POSITION'"));
    CHECK_THROWS_WITH(eval("OVERLAY(vb PLACING s FROM 1)"),
                      Catch::Contains("Cannot apply 'OVERLAY'"));
}

TEST_CASE("STARTSWITH and ENDSWITH over bytes", "[fn_string_binary]") {
    CHECK(eval("STARTSWITH(bin, bin)") == "true");
    CHECK(eval("ENDSWITH(bin, bin)") == "true");
    CHECK(eval("STARTSWITH(vb, CAST('dolor' AS BYTES))") == "true");
    CHECK(eval("ENDSWITH(vb, CAST('dolor' AS BYTES))") == "false");
}

TEST_CASE("FROM_BASE64_BINARY is VARBINARY(65536), nullable as its argument",
          "[fn_string_binary]") {
    auto r = eval_on_row("FROM_BASE64_BINARY(s)", schema(), row());
    CHECK(r.type == "VARBINARY(65536)");
    CHECK(r.value == "ZG9sb3I=");  // the values sink prints bytes as base64
    CHECK(eval_on_row("FROM_BASE64_BINARY(s_nn)", schema(), row()).type ==
          "VARBINARY(65536) NOT NULL");
}
