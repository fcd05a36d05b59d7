// Command workload is every container of the real-node tests: one static binary, one mode
// per argument. It imports nothing beyond the standard library, so it builds offline.
//
//	pause  the pod sandbox: sleep until SIGTERM or SIGINT, reaping children
//	serve  answer HTTP on :8080 ("/" 200, "/fail" 500) until SIGTERM
//	crash  print a line and exit 1
//	ok     print a line and exit 0
//	oom    allocate and touch memory 8 MiB at a time until the kernel kills it
package main

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
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
