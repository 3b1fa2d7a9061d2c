package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// acpConn is the client side of ACP (JSON-RPC 2.0, one object per line) over an agent's stdio: just
// what a launch needs (initialize, session/load|resume|new). Requests the agent makes are refused,
// notifications (the replayed transcript) ignored: the stand-in keeps no transcript.
type acpConn struct {
	w       io.Writer
	writeMu sync.Mutex
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan rpcReply
	closed  chan struct{} // closed when the agent's stdout ends
}

type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// errTransportClosed: the agent's stdout ended before the answer.
var errTransportClosed = errors.New("the agent closed its ACP transport")

func newACPConn(stdin io.Writer, stdout io.Reader) *acpConn {
	c := &acpConn{w: stdin, pending: map[int64]chan rpcReply{}, closed: make(chan struct{})}
	go c.read(stdout)
	return c
}

func (c *acpConn) read(stdout io.Reader) {
	defer close(c.closed)
	scanner := bufio.NewScanner(stdout)
	scanner.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for scanner.Scan() {
		var msg struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			rpcReply
		}
		if json.Unmarshal(scanner.Bytes(), &msg) != nil || msg.ID == nil {
			continue // not JSON-RPC, or a notification
		}
		if msg.Method != "" { // a request of the agent: refused
			c.send(map[string]any{"jsonrpc": "2.0", "id": msg.ID,
				"error": map[string]any{"code": -32601, "message": "the stand-in executor serves no " + msg.Method}})
			continue
		}
		var id int64
		if json.Unmarshal(*msg.ID, &id) != nil {
			continue
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- msg.rpcReply
		}
	}
}

func (c *acpConn) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// call sends a request and waits for its answer, the end of the transport, or ctx.
func (c *acpConn) call(ctx context.Context, method string, params any, result any) error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan rpcReply, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return errTransportClosed
	}
	select {
	case reply := <-ch:
		return reply.into(result)
	case <-c.closed:
		// An answer read just before the end still counts.
		select {
		case reply := <-ch:
			return reply.into(result)
		default:
			return errTransportClosed
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// initializeResult is the part of ACP initialize's answer a launch reads.
type initializeResult struct {
	AgentCapabilities struct {
		LoadSession         bool `json:"loadSession"`
		SessionCapabilities struct {
			Resume *json.RawMessage `json:"resume"`
		} `json:"sessionCapabilities"`
	} `json:"agentCapabilities"`
	AgentInfo struct {
		Name string `json:"name"`
	} `json:"agentInfo"`
}

// into is the request's outcome: the agent's error, or its result decoded into result (if any).
func (r rpcReply) into(result any) error {
	if r.Error != nil {
		return r.Error
	}
	if result != nil {
		return json.Unmarshal(r.Result, result)
	}
	return nil
}
