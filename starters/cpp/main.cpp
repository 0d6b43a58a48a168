// A starter bot in C++20: plays a random legal action (any game).
// Reads one JSON message a line from standard input, answers "hello" with "ready" and
// every "act" with the index of a legal action; logs go to standard error. The standard
// library has no JSON parser: this bot reads just the two things it needs, the message's
// "type" and how many entries its "legal" list has.
#include <iostream>
#include <random>
#include <string>

namespace {

// The string value of "key" at the message's top level (good enough for our messages).
std::string string_field(const std::string& line, const std::string& key) {
    auto at = line.find("\"" + key + "\"");
    if (at == std::string::npos) return "";
    at = line.find('"', line.find(':', at) + 1);
    auto end = line.find('"', at + 1);
    return line.substr(at + 1, end - at - 1);
}

// How many entries the list "legal" holds: its top-level commas plus one.
int count_legal(const std::string& line) {
    auto at = line.find('[', line.find("\"legal\""));
    int depth = 0, count = 1;
    bool in_string = false;
    for (auto i = at; i < line.size(); ++i) {
        char c = line[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            ++depth;
        } else if (c == ']' || c == '}') {
            if (--depth == 0) break;
        } else if (c == ',' && depth == 1) {
            ++count;
        }
    }
    return count;
}

}  // namespace

int main() {
    std::ios::sync_with_stdio(false);
    std::mt19937 rng{std::random_device{}()};
    std::string line;
    while (std::getline(std::cin, line)) {
        auto type = string_field(line, "type");
        if (type == "hello") {
            std::cerr << "playing " << string_field(line, "game") << '\n';
            std::cout << "{\"type\":\"ready\"}" << std::endl;
        } else if (type == "act") {
            std::uniform_int_distribution<int> pick(0, count_legal(line) - 1);
            std::cout << "{\"type\":\"action\",\"action\":" << pick(rng) << '}' << std::endl;
        } else if (type == "match_over") {
            return 0;
        }
    }
}
