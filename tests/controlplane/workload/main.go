// Command workload is every container of the real-node tests: one static binary, one mode
// per argument. It imports nothing beyond the standard library, so it builds offline.
//
//	pause  the pod sandbox: sleep until SIGTERM or SIGINT, reaping children
//	serve  answer HTTP on :8080 ("/" 200, "/fail" 500) until SIGTERM
//	crash  print a line and exit 1
//	ok     print a line and exit 0
//	oom    allocate and touch memory 8 MiB at a time until the kernel kills it
//	fill   write 4 MiB into the directory given as the next argument, then wait; exit 143
//	       on SIGTERM, as a program with no handler of its own would (128 + SIGTERM)
//	fill-clean  as fill, but exit 0 on SIGTERM, as a program that shuts down cleanly would
package main

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	mode := "pause"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "pause":
		pause()
	case "serve":
		serve()
	case "crash":
		fmt.Println("workload: crashing on purpose (exit 1)")
		os.Exit(1)
	case "ok":
		fmt.Println("workload: done (exit 0)")
	case "oom":
		oom()
	case "fill":
		fill(os.Args[2:], 143)
	case "fill-clean":
		fill(os.Args[2:], 0)
	default:
		fmt.Fprintf(os.Stderr, "workload: unknown mode %q\n", mode)
		os.Exit(2)
	}
}

func stopSignals() chan os.Signal {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	return stop
}

func pause() {
	stop := stopSignals()
	children := make(chan os.Signal, 1)
	signal.Notify(children, syscall.SIGCHLD)
	for {
		select {
		case <-stop:
			return
		case <-children:
			for {
				pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		}
	}
}

func serve() {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/fail", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "never ready", http.StatusInternalServerError)
	})
	server := &http.Server{Addr: ":8080", Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-stopSignals()
		os.Exit(0)
	}()
	fmt.Println("workload: serving on :8080")
	if err := server.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func oom() {
	fmt.Println("workload: allocating until killed")
	var held [][]byte
	for {
		chunk := make([]byte, 8<<20)
		for i := range chunk {
			chunk[i] = byte(i)
		}
		held = append(held, chunk)
		time.Sleep(10 * time.Millisecond)
	}
}

func fill(args []string, stopped int) {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "workload: fill needs a directory")
		os.Exit(2)
	}
	path := filepath.Join(args[0], "filler")
	if err := os.WriteFile(path, make([]byte, 4<<20), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("workload: wrote 4 MiB to %s\n", path)
	<-stopSignals()
	os.Exit(stopped)
}
