#include "pipeline/util/string_size.h"

namespace cdcd {

#if defined(__GLIBCXX__)
namespace {

// libstdc++'s basic_string::_M_set_length (private) sets the size and writes the terminating NUL,
// nothing else. An explicit instantiation may name a private member (access checking does not
// apply to its template arguments), and the template's friend calls it.
using SetLength = void (std::string::*)(std::string::size_type);
void set_length(std::string& s, std::size_t size);
template <SetLength F>
struct StringLength {
    friend void set_length(std::string& s, std::size_t size) { (s.*F)(size); }
};
template struct StringLength<&std::string::_M_set_length>;

}  // namespace

void set_size_within_capacity(std::string& s, std::size_t size) noexcept {
    set_length(s, size);
}
#else
void set_size_within_capacity(std::string& s, std::size_t size) noexcept {
    s.resize(size);  // within the capacity: no allocation, so it cannot throw
}
#endif

}  // namespace cdcd
