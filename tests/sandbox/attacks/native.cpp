// Native code's attacks, all at once (a compiled bot has no interpreter in its way):
// connect to the host's services, write outside /tmp, run a program written to /tmp,
// raise its privileges, set up io_uring, fork until refused, and grab memory until the
// cap. It writes what it managed as one REPORT line on standard error, then echoes.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

namespace {

std::string outcome(bool ok) { return ok ? "\"done\"" : "\"" + std::string(strerrordesc_np(errno)) + "\""; }

bool connects(int port) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return false;
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    bool ok = connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0;
    close(s);
    return ok;
}

bool writes(const char* path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (fd < 0) return false;
    bool ok = write(fd, "#!/bin/sh\necho escaped\n", 23) == 23;
    close(fd);
    return ok;
}

bool runs(const char* path) {
    pid_t child = fork();
    if (child == 0) {
        execl(path, path, static_cast<char*>(nullptr));
        _exit(errno == EACCES ? 3 : 4);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
    errno = EACCES;
    return false;
}

int forks() {
    int made = 0;
    for (; made < 10000; ++made) {
        pid_t child = fork();
        if (child < 0) break;
        if (child == 0) { pause(); _exit(0); }
    }
    return made;
}

long megabytes() {  // touched memory, in a child (the cap kills it, not the bot)
    int pipes[2];
    if (pipe(pipes) != 0) return -1;
    pid_t child = fork();
    if (child == 0) {
        for (long mb = 1;; ++mb) {
            char* block = static_cast<char*>(mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE,
                                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
            if (block == MAP_FAILED) _exit(0);
            memset(block, 1, 1 << 20);
            if (write(pipes[1], &mb, sizeof mb) != sizeof mb) _exit(0);
        }
    }
    close(pipes[1]);
    long mb = 0, got = 0;
    while (read(pipes[0], &got, sizeof got) == sizeof got) mb = got;
    waitpid(child, nullptr, 0);
    return mb;
}

}  // namespace

int main() {
    std::string report = "{";
    report += "\"redis\": " + outcome(connects(6379));
    report += ", \"postgres\": " + outcome(connects(5432));
    report += ", \"write_bot\": " + outcome(writes("/bot/escape.sh"));
    report += ", \"write_root\": " + outcome(writes("/escape.sh"));
    bool wrote_tmp = writes("/tmp/escape.sh");
    report += ", \"write_tmp\": " + outcome(wrote_tmp);
    report += ", \"run_tmp\": " + outcome(wrote_tmp && runs("/tmp/escape.sh"));
    report += ", \"setuid\": " + outcome(setuid(0) == 0);
    report += ", \"io_uring\": " + outcome(syscall(425, 8, nullptr) >= 0);
    report += ", \"memory_mb\": " + std::to_string(megabytes());
    report += ", \"forks\": " + std::to_string(forks());
    report += "}";
    std::cerr << "REPORT " << report << std::endl;
    std::string line;
    while (std::getline(std::cin, line)) std::cout << line << std::endl;
}
