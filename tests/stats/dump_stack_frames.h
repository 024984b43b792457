#ifndef HMO_TESTS_STATS_DUMP_STACK_FRAMES_H_
#define HMO_TESTS_STATS_DUMP_STACK_FRAMES_H_

// The user's source lines of a dump's instructions, worked out by the tests
// from the dump's own FileNames, FunctionNames, FileLocations and
// StackFrames tables and metadata, not by hmo's resolver.

#include <cstddef>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace hmo::test_support {

// `text` matched literally inside a regex.
inline std::string Quoted(const std::string& text) {
  return std::regex_replace(text, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
}

class DumpStackFrames {
 public:
  explicit DumpStackFrames(const std::string& text) {
    std::istringstream lines(text);
    std::string line, table;
    const std::regex name_row(R"re(^(\d+) "(.*)"$)re");
    const std::regex location_row(
        R"(^(\d+) \{file_name_id=(\d+) function_name_id=(\d+) line=(\d+))");
    const std::regex frame_row(R"(^(\d+) \{file_location_id=(\d+) )");
    while (std::getline(lines, line)) {
      IndexDefinition(line);
      std::smatch m;
      if (line == "FileNames" || line == "FunctionNames" || line == "FileLocations" ||
          line == "StackFrames") {
        table = line;
      } else if (line.empty() || line.rfind("HloModule", 0) == 0) {
        continue;
      } else if (table == "FileNames" && std::regex_search(line, m, name_row)) {
        files_[std::stoi(m[1])] = m[2];
      } else if (table == "FunctionNames" && std::regex_search(line, m, name_row)) {
        functions_[std::stoi(m[1])] = m[2];
      } else if (table == "FileLocations" && std::regex_search(line, m, location_row)) {
        locations_[std::stoi(m[1])] = {std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4])};
      } else if (table == "StackFrames" && std::regex_search(line, m, frame_row)) {
        frame_location_[std::stoi(m[1])] = std::stoi(m[2]);
      }
    }
  }

  // "file:line (function)" of frame `frame_id`; empty when not in the tables.
  std::string Frame(int frame_id) const {
    auto frame = frame_location_.find(frame_id);
    if (frame == frame_location_.end()) return "";
    auto location = locations_.find(frame->second);
    if (location == locations_.end()) return "";
    const auto [file, function, number] = location->second;
    return files_.at(file) + ":" + std::to_string(number) + " (" + functions_.at(function) + ")";
  }

  // The line defining `instruction` ("  %name = ..."), or empty.
  std::string Definition(const std::string& instruction) const {
    auto line = definitions_.find(instruction);
    return line == definitions_.end() ? "" : lines_[line->second];
  }

  // The innermost frame of `instruction`'s own stack_frame_id; empty
  // without one.
  std::string InnermostFrame(const std::string& instruction) const {
    return FrameOfLine(Definition(instruction));
  }

  // The innermost frames of the instructions fusion `instruction` fused,
  // nested fusions' included, parameters left out.
  std::set<std::string> FusedFrames(const std::string& instruction) const {
    std::set<std::string> frames;
    AddFusedFrames(Definition(instruction), frames, 0);
    return frames;
  }

 private:
  std::string FrameOfLine(const std::string& line) const {
    std::smatch m;
    if (!std::regex_search(line, m, std::regex(R"(stack_frame_id=(\d+))"))) return "";
    return Frame(std::stoi(m[1]));
  }

  void AddFusedFrames(const std::string& fusion_line, std::set<std::string>& frames,
                      int depth) const {
    std::smatch m;
    if (depth > 8 || fusion_line.find(" fusion(") == std::string::npos ||
        !std::regex_search(fusion_line, m, std::regex(R"(calls=%([^,\s]+))"))) {
      return;
    }
    auto header = computations_.find(m[1]);
    if (header == computations_.end()) return;
    for (size_t i = header->second + 1; i < lines_.size(); ++i) {
      const std::string& line = lines_[i];
      if (line == "}") break;
      if (line.find(" parameter(") != std::string::npos) continue;
      const std::string frame = FrameOfLine(line);
      if (!frame.empty()) frames.insert(frame);
      AddFusedFrames(line, frames, depth + 1);
    }
  }

  // Indexes `line`: an instruction's definition ("  ROOT %name = ...") or
  // a computation's header ("%name (...) -> ... {").
  void IndexDefinition(const std::string& line) {
    lines_.push_back(line);
    size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos) return;
    const bool header = start == 0;
    if (line.compare(start, 5, "ROOT ") == 0) start += 5;
    if (line.compare(start, 1, "%") != 0) return;
    const size_t end = line.find(header ? " (" : " = ", start);
    if (end == std::string::npos) return;
    (header ? computations_ : definitions_)[line.substr(start + 1, end - start - 1)] =
        lines_.size() - 1;
  }

  std::vector<std::string> lines_;
  std::map<std::string, size_t> definitions_, computations_;
  std::map<int, std::string> files_, functions_;
  std::map<int, std::tuple<int, int, int>> locations_;  // file, function, line
  std::map<int, int> frame_location_;
};

}  // namespace hmo::test_support

#endif  // HMO_TESTS_STATS_DUMP_STACK_FRAMES_H_
