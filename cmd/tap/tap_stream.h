#pragma once
// A minimal HTTP/1.1 GET whose body is handed on as it arrives (the shared net::HttpClient
// reads whole answers; a tap's body never ends by itself). Plain HTTP only: the admin endpoint
// has no TLS.
#include <functional>
#include <string>
#include <string_view>

namespace cdcd::tap {

struct StreamResult {
    int status = 0;        // the answer's HTTP status; 0 when none came
    std::string error;     // why there was no answer, or the body of an answer other than 200
    bool complete = true;  // a 200 body ended with the connection closed cleanly
};

/// GETs `url` (http://host:port/path?query); on 200 calls `on_body` with each piece of the
/// body until the server closes the connection or `on_body` returns false.
StreamResult stream_get(const std::string& url,
                        const std::function<bool(std::string_view)>& on_body);

}  // namespace cdcd::tap
