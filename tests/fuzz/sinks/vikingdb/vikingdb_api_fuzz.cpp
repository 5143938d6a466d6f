// VikingDB answers from hostile bytes: an error body (code and message, classified as the
// writers retry on it) and a GetVikingdbCollection answer, whose fields are then checked against
// a wanted collection as the sink does at start. The collection answer may be refused
// (std::runtime_error); nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "sinks/vikingdb/control_plane_client.h"
#include "sinks/vikingdb/type_mapping.h"

using namespace cdcd::vikingdb;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string body(reinterpret_cast<const char*>(data), size);
    for (int status : {200, 400, 429, 503}) {
        cdcd::net::HttpResponse response;
        response.status = status;
        response.body = body;
        (void)classify_response(response);
    }
    (void)is_throttling_code(parse_error_body(body).first);
    try {
        CollectionInfo info = parse_collection_info(body);
        for (const auto& field : info.fields) (void)parse_wire_type(field.type);
    } catch (const std::runtime_error&) {
    }
    return 0;
}
